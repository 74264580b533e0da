/**
 * `--cloud azure`: the AKS provider's VM-size catalog and prices for a region
 * (@karpenter-ts/provider-azure), its AKSNodeClass validation, and the NAP-style default
 * NodePool and AKSNodeClass.
 */
import {
  AKSNodeClassGroup,
  AzureLabelDomain,
  AzureWellKnownLabels,
  AKSNodeClassKind,
  chooseAzureLaunchOffering,
  defaultAKSNodeClass,
  defaultNodeClass,
  defaultNodePool,
  getAzureInstanceTypes,
  validateAKSNodeClass,
  type AKSNodeClass,
} from '@karpenter-ts/provider-azure';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { CliError } from '../errors.js';
import type { KubeObject } from '../manifests/document.js';
import { allowUndefinedLabels, type Cloud, type NodeClassProblem } from './cloud.js';

/** Creates the Azure cloud for an ARM region (e.g. `eastus`). */
export function azureCloud(region: string): Cloud {
  const cache = new Map<string, readonly InstanceType[]>();
  const cloud: Cloud = {
    name: 'azure',
    region,
    nodeClassKind: { group: AKSNodeClassGroup, kind: AKSNodeClassKind },
    instanceTypes(nodeClass) {
      const resolved = defaultAKSNodeClass(
        (nodeClass ?? defaultNodeClass()) as unknown as AKSNodeClass,
      );
      const key = JSON.stringify(resolved.spec ?? {});
      let types = cache.get(key);
      if (!types) {
        types = getAzureInstanceTypes({ region, nodeClass: resolved });
        if (!types.some((it) => it.offerings.some((o) => o.available))) {
          throw new CliError(
            `--region: the Azure catalog has no priced VM sizes for region ${JSON.stringify(region)}`,
          );
        }
        cache.set(key, types);
      }
      return types;
    },
    defaults: () => ({
      nodePool: defaultNodePool(),
      nodeClass: defaultNodeClass() as unknown as KubeObject,
      source: 'AKS node auto-provisioning (NAP) default NodePool and AKSNodeClass',
    }),
    validateNodeClass: (object): NodeClassProblem[] =>
      validateAKSNodeClass(object).map((v) => ({ path: v.path, message: v.message })),
    // The provider's launch ranking (price, then spot before on-demand, zonal before regional).
    // The shipped data prices spot as on-demand, so spot wins whenever the node claim allows it.
    chooseLaunch: (options, requirements) =>
      chooseAzureLaunchOffering(options, requirements, allowUndefinedLabels(cloud)),
    wellKnownLabels: AzureWellKnownLabels,
    restrictedLabelDomains: new Set([AzureLabelDomain]),
    spotPricing: 'spot priced as on-demand (no spot data)',
  };
  return cloud;
}
