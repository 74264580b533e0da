/**
 * The offering an Azure node claim launches on, decided without randomness so simulations and
 * reports are reproducible (reference azure-provider.md 5.1 step 4).
 *
 * Upstream Azure orders the node claim's instance types by the price of their cheapest
 * compatible available offering, takes the first, then picks its priority with
 * getPriorityForInstanceType: **Spot whenever the node claim allows spot and the size has an
 * available spot offering**, Regular (on-demand) otherwise; finally a zone among that priority's
 * offerings, at random to spread launches. We keep every step but the last, which is made
 * deterministic (see {@link chooseAzureLaunchOffering}).
 *
 * Pricing caveat: the shipped static price data has no spot prices; spot offerings are priced
 * as on-demand until a live Retail Prices refresh (as upstream starts up), so a spot launch from
 * static data shows the on-demand price.
 */
import {
  isOfferingCompatible,
  type InstanceType,
  type Offering,
} from '@karpenter-ts/cloudprovider';
import { WELL_KNOWN_LABELS_ALLOW_UNDEFINED, type Requirements } from '@karpenter-ts/scheduling';
import { REGIONAL_ZONE } from '../catalog/zones.js';
import { AzureWellKnownLabels } from '../labels.js';

/** Karpenter's well-known labels plus Azure's (offerings pin `karpenter.azure.com/placement-scope`). */
const AZURE_ALLOW_UNDEFINED: ReadonlySet<string> = new Set([
  ...WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  ...AzureWellKnownLabels,
]);

/** An instance type and the offering to launch it on. */
export interface AzureLaunchOffering<IT extends InstanceType = InstanceType> {
  readonly instanceType: IT;
  readonly offering: Offering;
}

/**
 * Chooses what an Azure node claim launches as, from its instance-type options and its
 * requirements (`requirements` narrow capacity type and zone; `allowUndefined` are label keys
 * the requirements may leave undefined, default Karpenter's and Azure's well-known labels):
 *
 * 1. offerings considered: available and compatible with `requirements`; options without one
 *    are skipped;
 * 2. instance type: the one whose cheapest considered offering is cheapest (USD/hour); ties by
 *    name, ascending (upstream orders by price, then name);
 * 3. capacity type: `spot` when the type has a considered spot offering (the requirements allow
 *    spot), else `on-demand`, else whatever remains;
 * 4. offering of that capacity type: the cheapest; ties zonal before regional (zone `0`), then
 *    the zone name ascending (`eastus-1` before `eastus-2`). Upstream picks among tied zones at
 *    random; a fixed rule keeps simulations reproducible.
 *
 * Returns undefined when no option has a considered offering. Never throws.
 */
export function chooseAzureLaunchOffering<IT extends InstanceType>(
  instanceTypeOptions: readonly IT[],
  requirements: Requirements,
  allowUndefined: ReadonlySet<string> = AZURE_ALLOW_UNDEFINED,
): AzureLaunchOffering<IT> | undefined {
  let best: { instanceType: IT; offerings: Offering[]; price: number } | undefined;
  for (const instanceType of instanceTypeOptions) {
    const offerings = instanceType.offerings.filter(
      (o) => o.available && isOfferingCompatible(o, requirements, allowUndefined),
    );
    if (offerings.length === 0) continue;
    const price = Math.min(...offerings.map((o) => o.price));
    if (
      best === undefined ||
      price < best.price ||
      (price === best.price && instanceType.name < best.instanceType.name)
    )
      best = { instanceType, offerings, price };
  }
  if (best === undefined) return undefined;
  const spot = best.offerings.filter((o) => o.capacityType === 'spot');
  const onDemand = best.offerings.filter((o) => o.capacityType === 'on-demand');
  const pool = spot.length > 0 ? spot : onDemand.length > 0 ? onDemand : best.offerings;
  const offering = [...pool].sort(compareZones)[0] as Offering;
  return { instanceType: best.instanceType, offering };
}

/** Cheapest first, then zonal before regional, then zone name ascending. */
function compareZones(a: Offering, b: Offering): number {
  if (a.price !== b.price) return a.price - b.price;
  const ar = a.zone === REGIONAL_ZONE;
  const br = b.zone === REGIONAL_ZONE;
  if (ar !== br) return ar ? 1 : -1;
  return a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0;
}
