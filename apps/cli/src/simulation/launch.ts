/**
 * The cheapest-offering launch: among every instance-type option, the cheapest available
 * offering compatible with the claim's requirements (ties: the option the scheduler ranked
 * first, then the provider's offering order). This is how the sim provider resolves a node
 * claim. AWS (clouds/aws-launch.ts) and Azure (provider-azure chooseAzureLaunchOffering) first
 * pick a capacity type, as their providers do.
 */
import type { InstanceType, Offering } from '@karpenter-ts/cloudprovider';
import type { Requirements } from '@karpenter-ts/scheduling';

/** The instance type and offering chosen for a node claim. */
export interface Launch {
  readonly instanceType: InstanceType;
  readonly offering: Offering;
}

/**
 * Picks the launch for a claim; undefined when no option has an available compatible offering.
 * `allowUndefined`: label keys the claim may leave undefined (see allowUndefinedLabels).
 */
export function chooseLaunch(
  options: readonly InstanceType[],
  requirements: Requirements,
  allowUndefined: ReadonlySet<string>,
): Launch | undefined {
  let best: Launch | undefined;
  for (const instanceType of options) {
    for (const offering of instanceType.offerings) {
      if (!offering.available) continue;
      if (!requirements.isCompatible(offering.requirements, allowUndefined)) continue;
      // Strictly cheaper only: ties keep the scheduler's option order, then the provider's offering order.
      if (best === undefined || offering.price < best.offering.price)
        best = { instanceType, offering };
    }
  }
  return best;
}
