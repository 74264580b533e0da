/**
 * Label keys of the Azure provider (upstream `Azure/karpenter-provider-azure`'s). Values are
 * derived per VM size in `instancetype/requirements.ts`.
 */

/** The provider's own label domain; restricted like `karpenter.sh` (users may only require it). */
export const AzureLabelDomain = 'karpenter.azure.com';

/** `karpenter.azure.com/*` labels describing a VM size (schedulable through NodePool requirements). */
export const AzureLabels = {
  /** ARM size name, e.g. `Standard_D4s_v5`. */
  SKUName: 'karpenter.azure.com/sku-name',
  /** First capital letter of the size name (`D`, `E`, `N`); not the ARM quota family. */
  SKUFamily: 'karpenter.azure.com/sku-family',
  /** Family + subfamily + feature letters + `_vN` (`Ds_v5`, `NCads_v4`). */
  SKUSeries: 'karpenter.azure.com/sku-series',
  /** Version digits (`5`); `1` when the name has none. */
  SKUVersion: 'karpenter.azure.com/sku-version',
  /** vCPU count. */
  SKUCPU: 'karpenter.azure.com/sku-cpu',
  /** Memory in MiB (floor(GiB × 1024)). */
  SKUMemory: 'karpenter.azure.com/sku-memory',
  /** `true` / `false`: accelerated networking supported. */
  SKUAcceleratedNetworking: 'karpenter.azure.com/sku-networking-accelerated',
  /** `true` / `false`: premium storage capable. */
  SKUStoragePremiumCapable: 'karpenter.azure.com/sku-storage-premium-capable',
  /** Largest ephemeral OS disk in decimal GB; absent when the size has none. */
  SKUStorageEphemeralOSMaxSize: 'karpenter.azure.com/sku-storage-ephemeralos-maxsize',
  /** `true,false` when ultra SSD can be attached, else `false`. */
  SKUStorageUltraSSD: 'karpenter.azure.com/sku-storage-ultra-ssd',
  /** GPU count (0 unless the size is in the GPU registry). */
  SKUGPUCount: 'karpenter.azure.com/sku-gpu-count',
  /** `nvidia` / `amd`, registry GPU sizes only. */
  SKUGPUManufacturer: 'karpenter.azure.com/sku-gpu-manufacturer',
  /** Accelerator token from the name (`A100`, `T4`), registry GPU sizes only. */
  SKUGPUName: 'karpenter.azure.com/sku-gpu-name',
  /** Hyper-V generations supported: `1` and/or `2`. */
  SKUHyperVGeneration: 'karpenter.azure.com/sku-hyperv-generation',
  /** `zonal` or `regional` (zone `0`). */
  PlacementScope: 'karpenter.azure.com/placement-scope',
} as const;

/** `kubernetes.azure.com/*` labels AKS puts on nodes that Karpenter models as requirements. */
export const AKSLabels = {
  CPU: 'kubernetes.azure.com/sku-cpu',
  Memory: 'kubernetes.azure.com/sku-memory',
  /** `user` or `system`. */
  Mode: 'kubernetes.azure.com/mode',
  /** `regular` or `spot`. */
  ScaleSetPriority: 'kubernetes.azure.com/scalesetpriority',
  /** `regular` or `spot`. */
  Priority: 'kubernetes.azure.com/priority',
  /** `Ubuntu` or `AzureLinux`. */
  OSSKU: 'kubernetes.azure.com/os-sku',
  /** `true` only on FIPS nodes. */
  FIPSEnabled: 'kubernetes.azure.com/fips_enabled',
  /** Normalised node resource group name. */
  Cluster: 'kubernetes.azure.com/cluster',
  /** `enabled` / `disabled`. */
  LocalDNSState: 'kubernetes.azure.com/localdns-state',
  /** `true` on amd64 nodes with artifact streaming. */
  ArtifactStreamingEnabled: 'kubernetes.azure.com/artifactstreaming-enabled',
} as const;

/** Azure labels pods may select even when a NodePool does not define them (upstream's well-known additions). */
export const AzureWellKnownLabels: ReadonlySet<string> = new Set<string>([
  ...Object.values(AzureLabels),
  AKSLabels.CPU,
  AKSLabels.Memory,
  AKSLabels.Mode,
  AKSLabels.ScaleSetPriority,
  AKSLabels.Priority,
  AKSLabels.OSSKU,
  AKSLabels.FIPSEnabled,
  AKSLabels.Cluster,
]);
