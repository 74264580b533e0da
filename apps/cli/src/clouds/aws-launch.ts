/**
 * The offering an EC2 node claim launches on, as upstream's Create resolves it when no capacity
 * error intervenes:
 *
 * 1. offerings considered: available and compatible with the node claim's requirements;
 * 2. capacity type: `reserved` if any considered offering is reserved, else `spot` if any is
 *    spot, else `on-demand` (step 4);
 * 3. for spot, when on-demand is allowed too, spot offerings priced above the cheapest
 *    on-demand offering are dropped (step 3.6);
 * 4. CreateFleet then picks among the remaining offerings of that capacity type: `lowest-price`
 *    for on-demand, `price-capacity-optimized` for spot. Without capacity data both come down
 *    to the cheapest offering; ties keep the options' order (cheapest first), then the
 *    provider's offering order.
 *
 * Not modelled: the exotic-type filter (metal, GPU) and the truncation to 60 types, which only
 * matter when the cheapest type is exotic or beyond the 60 cheapest, and capacity-reservation
 * partitions.
 */
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import type { Requirements } from '@karpenter-ts/scheduling';
import type { Launch } from '../simulation/launch.js';

const CAPACITY_TYPE_ORDER = ['reserved', 'spot', 'on-demand'] as const;

/**
 * Picks the launch for a node claim; undefined when no option has an available compatible
 * offering. `allowUndefined`: label keys the claim may leave undefined (see allowUndefinedLabels).
 */
export function chooseAwsLaunch(
  options: readonly InstanceType[],
  requirements: Requirements,
  allowUndefined: ReadonlySet<string>,
): Launch | undefined {
  const considered: Launch[] = [];
  for (const instanceType of options)
    for (const offering of instanceType.offerings)
      if (offering.available && requirements.isCompatible(offering.requirements, allowUndefined))
        considered.push({ instanceType, offering });
  const capacityType = CAPACITY_TYPE_ORDER.find((ct) =>
    considered.some((c) => c.offering.capacityType === ct),
  );
  if (capacityType === undefined) return cheapest(considered);
  let candidates = considered.filter((c) => c.offering.capacityType === capacityType);
  if (capacityType === 'spot') {
    const onDemand = cheapest(considered.filter((c) => c.offering.capacityType === 'on-demand'));
    if (onDemand) {
      const capped = candidates.filter((c) => c.offering.price <= onDemand.offering.price);
      if (capped.length > 0) candidates = capped;
    }
  }
  return cheapest(candidates);
}

/** The first strictly cheapest launch (ties keep the input order). */
function cheapest(launches: readonly Launch[]): Launch | undefined {
  let best: Launch | undefined;
  for (const l of launches) if (!best || l.offering.price < best.offering.price) best = l;
  return best;
}
