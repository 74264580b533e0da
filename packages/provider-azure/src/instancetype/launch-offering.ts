/**
 * The offering an Azure node claim launches on, for simulations: the launch path's own choice
 * (upstream `Azure/karpenter-provider-azure`'s pick, see `launchCandidates`) with tied zones taken
 * in name order instead of at random, so reports are reproducible.
 *
 * Pricing caveat: the shipped static price data has no spot prices; spot offerings are priced
 * as on-demand until a live Retail Prices refresh (as upstream starts up), so at equal prices the
 * launch is spot (spot ranks before on-demand) and shows the on-demand price.
 */
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import type { Requirements } from '@karpenter-ts/scheduling';
import {
  AZURE_ALLOW_UNDEFINED,
  launchCandidates,
  type LaunchCandidate,
} from '../launch/selection.js';

/** An instance type and the offering to launch it on. */
export type AzureLaunchOffering<IT extends InstanceType = InstanceType> = LaunchCandidate<IT>;

/**
 * Chooses what an Azure node claim launches as, from its instance-type options (already known to
 * fit its requests) and its requirements: offerings available and compatible with the
 * requirements; instance types by their best offering (USD/hour, then spot before on-demand, then
 * zonal before regional), ties by name; that type's best offering, tied zones by name.
 * `allowUndefined`: label keys the requirements may leave undefined (default Karpenter's and
 * Azure's well-known labels). Returns undefined when no option has such an offering. Never throws.
 */
export function chooseAzureLaunchOffering<IT extends InstanceType>(
  instanceTypeOptions: readonly IT[],
  requirements: Requirements,
  allowUndefined: ReadonlySet<string> = AZURE_ALLOW_UNDEFINED,
): AzureLaunchOffering<IT> | undefined {
  return launchCandidates(instanceTypeOptions, requirements, {}, null, allowUndefined)[0];
}
