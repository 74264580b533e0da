/**
 * Choosing what to launch for a node claim (as upstream `Azure/karpenter-provider-azure`): among
 * the node claim's instance-type options, keep the types whose requirements intersect the claim's
 * and whose allocatable fits its requests, and their available offerings compatible with the claim.
 * Offerings sort by price, then spot before on-demand, then zonal before regional; equal ones are
 * shuffled (spreading launches across zones), or, for reproducible simulations, ordered by zone
 * name. Types sort by their best offering, then by name.
 */
import {
  OfferingCompatibility,
  type InstanceType,
  type Offering,
} from '@karpenter-ts/cloudprovider';
import {
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  fits,
  type Requirements,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import { AzureWellKnownLabels } from '../labels.js';
import { REGIONAL_ZONE } from '../catalog/zones.js';
import type { AzureInstanceType } from '../instancetype/instance-type.js';

/** One launchable (instance type, offering) pair. */
export interface LaunchCandidate<IT extends InstanceType = AzureInstanceType> {
  readonly instanceType: IT;
  readonly offering: Offering;
}

/** Keys a node claim may leave undefined when matched against an offering: core's and Azure's well-known labels (offerings pin placement-scope). */
export const AZURE_ALLOW_UNDEFINED: ReadonlySet<string> = new Set([
  ...WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  ...AzureWellKnownLabels,
]);

function compareOfferings(a: Offering, b: Offering): number {
  if (a.price !== b.price) return a.price - b.price;
  if (a.capacityType !== b.capacityType) return a.capacityType === 'spot' ? -1 : 1;
  const ar = a.zone === REGIONAL_ZONE;
  const br = b.zone === REGIONAL_ZONE;
  if (ar !== br) return ar ? 1 : -1;
  return 0;
}

/** Fisher-Yates shuffle of runs of equal elements (by `compare`), in place. */
function shuffleTies<T>(items: T[], compare: (a: T, b: T) => number, random: () => number): void {
  let start = 0;
  while (start < items.length) {
    let end = start + 1;
    while (end < items.length && compare(items[start] as T, items[end] as T) === 0) end++;
    for (let i = end - 1; i > start; i--) {
      const j = start + Math.floor(random() * (i - start + 1));
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    start = end;
  }
}

/** Zonal offerings of equal rank in zone-name order (reproducible simulations). */
function compareOfferingsStable(a: Offering, b: Offering): number {
  return compareOfferings(a, b) || (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0);
}

/**
 * Every launchable pair in launch order (the first is what upstream launches).
 * @param requests the node claim's `spec.resources.requests` as a canonical resource list.
 * @param random uniform [0, 1) source for tie shuffling (default Math.random), or `null` to
 *   order tied offerings by zone name instead.
 * @param allowUndefined label keys the requirements may leave undefined (default: Karpenter's
 *   and Azure's well-known labels).
 */
export function launchCandidates<IT extends InstanceType = AzureInstanceType>(
  instanceTypes: readonly IT[],
  requirements: Requirements,
  requests: ResourceList,
  random: (() => number) | null = Math.random,
  allowUndefined: ReadonlySet<string> = AZURE_ALLOW_UNDEFINED,
): LaunchCandidate<IT>[] {
  const perType: { it: IT; offerings: Offering[] }[] = [];
  const compatibility = new OfferingCompatibility(requirements, allowUndefined);
  for (const it of instanceTypes) {
    if (!requirements.isIntersecting(it.requirements)) continue;
    if (!fits(requests, it.allocatable())) continue;
    const offerings = it.offerings.filter((o) => o.available && compatibility.compatible(o));
    if (offerings.length === 0) continue;
    if (random === null) offerings.sort(compareOfferingsStable);
    else {
      offerings.sort(compareOfferings);
      shuffleTies(offerings, compareOfferings, random);
    }
    perType.push({ it, offerings });
  }
  perType.sort((a, b) => {
    const c = compareOfferings(a.offerings[0] as Offering, b.offerings[0] as Offering);
    if (c !== 0) return c;
    return a.it.name < b.it.name ? -1 : a.it.name > b.it.name ? 1 : 0;
  });
  return perType.flatMap(({ it, offerings }) =>
    offerings.map((offering) => ({ instanceType: it, offering })),
  );
}
