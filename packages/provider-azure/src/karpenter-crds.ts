/**
 * The karpenter.sh CRDs as the Azure provider installs them (issue 15, Validation 3), and the
 * known requirement values its NodePool validation checks. Upstream's Azure provider patches
 * its copies of the NodePool, NodeClaim and NodeOverlay CRDs: label and requirement keys in
 * `karpenter.azure.com` are limited to its well-known labels (so the internal
 * `sku-hyperv-generation` is refused), keys in `kubernetes.azure.com` to the AKS labels it allows,
 * and the bare AKS keys `agentpool`, `storageprofile`, `storagetier` and `accelerator` are refused.
 */
import {
  CapacityType,
  forbiddenKeyRule,
  labelDomainRule,
  providerKarpenterCrd,
  providerKarpenterValidators,
  type CrdValidator,
  type KarpenterKind,
  type ProviderCrdRules,
} from '@karpenter-ts/api';
import { AKSLabels, AzureLabelDomain, AzureLabels } from './labels.js';

/** The AKS label domain. */
export const AKSLabelDomain = 'kubernetes.azure.com';

/** `karpenter.azure.com` keys NodePools may set as labels or require (all but the internal hyperv generation). */
export const AzureAllowedLabels: readonly string[] = [
  `${AzureLabelDomain}/aksnodeclass`,
  ...Object.values(AzureLabels).filter((k) => k !== AzureLabels.SKUHyperVGeneration),
];

/** `kubernetes.azure.com` keys NodePools may set as labels or require; every other key there is refused. */
export const AKSAllowedLabels: readonly string[] = [
  AKSLabels.Mode,
  AKSLabels.ScaleSetPriority,
  AKSLabels.Priority,
  AKSLabels.FIPSEnabled,
  AKSLabels.OSSKU,
  AKSLabels.Cluster,
  AKSLabels.CPU,
  AKSLabels.Memory,
  `${AKSLabelDomain}/ebpf-dataplane`,
  `${AKSLabelDomain}/ebpf-host-routing`,
  `${AKSLabelDomain}/network-policy`,
  `${AKSLabelDomain}/hostedvm`,
];

/** Label keys without a domain that AKS writes itself and NodePools may not set or require. */
export const AKSReservedBareLabels: readonly string[] = [
  'agentpool',
  'storageprofile',
  'storagetier',
  'accelerator',
];

function rules(on: 'labels' | 'key'): ProviderCrdRules['labels'] {
  const what = on === 'labels' ? 'label' : 'requirement key';
  return [
    labelDomainRule(
      AzureLabelDomain,
      AzureAllowedLabels,
      on,
      `${what}s in the karpenter.azure.com domain are limited to the Azure provider's well-known labels (on the Azure provider's CRD)`,
    ),
    labelDomainRule(
      AKSLabelDomain,
      AKSAllowedLabels,
      on,
      `${what}s in the kubernetes.azure.com domain are limited to ${AKSAllowedLabels.map((k) => k.slice(AKSLabelDomain.length + 1)).join(', ')} (on the Azure provider's CRD)`,
    ),
    ...AKSReservedBareLabels.map((key) =>
      forbiddenKeyRule(key, on, `${what} ${key} is set by AKS (on the Azure provider's CRD)`),
    ),
  ];
}

/** The rules the Azure provider adds to the karpenter.sh CRDs. */
export const AzureKarpenterCrdRules: ProviderCrdRules = {
  provider: 'azure',
  labels: rules('labels'),
  requirementKey: rules('key'),
};

/** A karpenter.sh CRD as the Azure provider installs it. */
export function azureKarpenterCrd(kind: KarpenterKind): Record<string, unknown> {
  return providerKarpenterCrd(kind, AzureKarpenterCrdRules);
}

/** NodePool, NodeClaim and NodeOverlay validators as the Azure provider's CRDs judge objects. */
export function azureKarpenterValidators(): CrdValidator[] {
  return providerKarpenterValidators(AzureKarpenterCrdRules);
}

/**
 * Known values of the Azure well-known requirement keys, checked case-sensitively by the NodePool
 * validation (a NodePool naming none of them is not ready): the values the provider's instance
 * types and nodes carry. Capacity type has no `reserved` on Azure.
 */
export const AzureWellKnownValues: Readonly<Record<string, readonly string[]>> = {
  'karpenter.sh/capacity-type': [CapacityType.OnDemand, CapacityType.Spot],
  [AKSLabels.Mode]: ['system', 'user'],
  [AKSLabels.ScaleSetPriority]: ['regular', 'spot'],
  [AKSLabels.Priority]: ['regular', 'spot'],
  [AKSLabels.OSSKU]: ['Ubuntu', 'AzureLinux'],
  [AKSLabels.FIPSEnabled]: ['true', 'false'],
  [AzureLabels.SKUGPUManufacturer]: ['nvidia', 'amd'],
  [AzureLabels.PlacementScope]: ['zonal', 'regional'],
};
