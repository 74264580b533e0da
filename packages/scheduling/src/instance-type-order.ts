/**
 * Ordering and truncation of a node claim's instance-type options (karpenter-core.md 2.6): by
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
