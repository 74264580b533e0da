/**
 * Ordering and truncation of a node claim's instance-type options: by
 * the price of the cheapest available offering compatible with the claim's requirements, then
 * truncated to `maxInstanceTypes` while keeping minValues.
 */
import type { Requirements } from './requirements.js';
import type { SchedulerInstanceType } from './scheduler-types.js';

/** USD/hour of the cheapest available offering intersecting `reqs`; Infinity when none. */
export function cheapestOfferingPrice(it: SchedulerInstanceType, reqs: Requirements): number {
  let best = Infinity;
  for (const o of it.offerings) {
    if (o.available && o.price < best && reqs.isIntersecting(o.requirements)) best = o.price;
  }
  return best;
}

/** The types sorted by cheapest compatible offering, ties by name (deterministic). */
export function orderByPrice<IT extends SchedulerInstanceType>(
  types: readonly IT[],
  reqs: Requirements,
): IT[] {
  const priced = types.map((it) => ({ it, price: cheapestOfferingPrice(it, reqs) }));
  priced.sort(
    (a, b) => a.price - b.price || (a.it.name < b.it.name ? -1 : a.it.name > b.it.name ? 1 : 0),
  );
  return priced.map((p) => p.it);
}

/** The capacity types of the available offerings of `types` that intersect `reqs`, sorted. */
export function compatibleCapacityTypes(
  types: readonly SchedulerInstanceType[],
  reqs: Requirements,
): string[] {
  const out = new Set<string>();
  for (const it of types) {
    for (const o of it.offerings)
      if (o.available && reqs.isIntersecting(o.requirements)) out.add(o.capacityType);
  }
  return [...out].sort();
}

/**
 * Catalog rows in `orderByPrice` order under `reqs`, with each row's `compatibleCapacityTypes`:
 * computed once per requirement signature, so a node claim's options are its rows picked from
 * `rows` in order (the same order `orderByPrice` gives its types: price, then name, then row).
 */
export interface RowPriceOrder {
  /** Every row index, by (cheapest compatible offering price, type name, row). */
  readonly rows: Int32Array;
  /** Per row: capacity types of its type's available offerings that intersect `reqs`. */
  readonly capacityTypes: readonly (readonly string[])[];
}

/** Builds the `RowPriceOrder` of rows whose instance types are `types[row]`. */
export function rowPriceOrder(
  types: readonly SchedulerInstanceType[],
  reqs: Requirements,
): RowPriceOrder {
  const priceOf = new Map<SchedulerInstanceType, number>();
  const capacityOf = new Map<SchedulerInstanceType, readonly string[]>();
  const prices = new Float64Array(types.length);
  const capacityTypes: (readonly string[])[] = [];
  types.forEach((it, row) => {
    let price = priceOf.get(it);
    let capacity = capacityOf.get(it);
    if (price === undefined || capacity === undefined) {
      price = cheapestOfferingPrice(it, reqs);
      capacity = compatibleCapacityTypes([it], reqs);
      priceOf.set(it, price);
      capacityOf.set(it, capacity);
    }
    prices[row] = price;
    capacityTypes.push(capacity);
  });
  const order = Array.from(types.keys());
  order.sort((a, b) => {
    const x = types[a] as SchedulerInstanceType;
    const y = types[b] as SchedulerInstanceType;
    return (
      (prices[a] as number) - (prices[b] as number) ||
      (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) ||
      a - b
    );
  });
  return { rows: Int32Array.from(order), capacityTypes };
}
