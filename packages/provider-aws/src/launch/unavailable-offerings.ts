/**
 * The unavailable-offerings cache (upstream pkg/cache/unavailableofferings, reference 4.3): an
 * offering that answered with an insufficient-capacity error is unavailable for 3 minutes,
 * keyed `<capacityType>:<instanceType>:<zone>`.
 */
import { systemClock, type Clock, type OfferingKey } from '@karpenter-ts/cloudprovider';

/** Seconds an offering stays unavailable after a capacity error. */
export const UnavailableOfferingsTTLSeconds = 180;

/** The cache. */
export class UnavailableOfferings {
  readonly #until = new Map<string, { key: OfferingKey; until: number }>();
  readonly #clock: Clock;
  /** Bumped on every change, so instance-type caches know when to rebuild. */
  seq = 0;

  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
  }

  /** Marks one offering unavailable for {@link UnavailableOfferingsTTLSeconds}. */
  mark(key: OfferingKey): void {
    const id = `${key.capacityType}:${key.instanceType}:${key.zone}`;
    this.#until.set(id, { key, until: this.#clock.now() + UnavailableOfferingsTTLSeconds * 1000 });
    this.seq++;
  }

  /** The offerings unavailable now (expired entries are dropped). */
  list(): OfferingKey[] {
    const now = this.#clock.now();
    const out: OfferingKey[] = [];
    for (const [id, e] of this.#until) {
      if (e.until <= now) {
        this.#until.delete(id);
        this.seq++;
      } else out.push(e.key);
    }
    return out;
  }
}
