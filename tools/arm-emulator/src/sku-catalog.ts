/**
 * The VM sizes an emulator sells right now: the resource SKU list (`GET .../skus`) answers from
 * it and VM creates are validated against it. Tests change it while the emulator runs (a new
 * size goes on sale, a size is withdrawn, a restriction appears) to exercise the provider's
 * periodic SKU refresh. The initial list is read on first use, so starting an emulator stays cheap.
 */
import { skuInLocation, type ResourceSku } from './resource-skus.js';

/** What an emulator sells; names are matched case-insensitively, as ARM does. */
export class SkuCatalog {
  #initial: (() => readonly ResourceSku[]) | undefined;
  readonly #byName = new Map<string, ResourceSku>();

  /** `initial` is called once, on first use. */
  constructor(initial: () => readonly ResourceSku[]) {
    this.#initial = initial;
  }

  #skus(): Map<string, ResourceSku> {
    if (this.#initial) {
      for (const s of this.#initial()) this.#byName.set(s.name.toLowerCase(), s);
      this.#initial = undefined;
    }
    return this.#byName;
  }

  /** The size named `name` (any case), or undefined when it is not sold. */
  get(name: string): ResourceSku | undefined {
    return this.#skus().get(name.toLowerCase());
  }

  /**
   * Every size sold, in insertion order; with `location`, only the sizes listed there, each
   * projected to that location as a location-filtered ARM list answers (restricted ones included).
   */
  list(location?: string): ResourceSku[] {
    const all = [...this.#skus().values()];
    if (location === undefined) return all;
    return all.flatMap((s) => skuInLocation(s, location) ?? []);
  }

  /** Number of sizes sold. */
  get size(): number {
    return this.#skus().size;
  }

  /**
   * Puts a size on sale, replacing a size of the same name (e.g. the same size with a
   * restriction). Throws TypeError naming the field when the record lacks a name or its
   * `locationInfo` does not match `locations`.
   */
  sell(sku: ResourceSku): void {
    if (typeof sku?.name !== 'string' || sku.name === '')
      throw new TypeError('sku.name: must be a non-empty string');
    const infos = (sku.locationInfo ?? []).map((l) => l.location);
    if (
      !Array.isArray(sku.locations) ||
      infos.length !== sku.locations.length ||
      infos.some((l) => !sku.locations.includes(l))
    )
      throw new TypeError(`sku ${sku.name}: locationInfo[].location must list exactly locations`);
    this.#skus().set(sku.name.toLowerCase(), {
      ...sku,
      capabilities: sku.capabilities ?? [],
      restrictions: sku.restrictions ?? [],
    });
  }

  /** Withdraws a size (list answers and VM creates stop seeing it); false when it was not sold. */
  stopSelling(name: string): boolean {
    return this.#skus().delete(name.toLowerCase());
  }
}
