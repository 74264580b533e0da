/**
 * Events the disruption controller records on every pass would repeat every 10 s; upstream's
 * recorder drops an event equal to one recorded within its dedupe window (2 min by default, 15
 * min for `Unconsolidatable`). This does the same before the client sees the event.
 */
import type { Clock } from '../clock.js';
import type { KubeClient, KubeEvent } from '../kube/client.js';

/** Default dedupe window, seconds. */
export const EventDedupeSeconds = 120;

/** See the module comment. */
export class EventDeduper {
  readonly #last = new Map<string, number>();

  constructor(
    private readonly client: KubeClient,
    private readonly clock: Clock,
  ) {}

  /** Records the event unless the same one was recorded within `windowSeconds`. */
  record(
    involved: KubeEvent['involved'],
    type: KubeEvent['type'],
    reason: string,
    message: string,
    windowSeconds = EventDedupeSeconds,
  ): void {
    const key = `${involved.kind}/${involved.namespace ?? ''}/${involved.name}/${reason}/${message}`;
    const now = this.clock.now();
    const last = this.#last.get(key);
    if (last !== undefined && now - last < windowSeconds * 1000) return;
    if (this.#last.size > 10_000) this.#prune(now);
    this.#last.set(key, now);
    this.client.recordEvent({ involved, type, reason, message });
  }

  #prune(now: number): void {
    for (const [k, t] of this.#last) if (now - t >= 15 * 60 * 1000) this.#last.delete(k);
  }
}
