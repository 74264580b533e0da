/**
 * Operator-level inputs to the instance-type builder (the Azure operator's options that change
 * instance types, under upstream `Azure/karpenter-provider-azure`'s names).
 */
import type { AzurePricing } from '../catalog/pricing.js';
import type { AzureSku } from '../catalog/sku.js';
import type { NetworkPlugin, NetworkPluginMode } from './max-pods.js';

/** Capacity types the Azure provider sells. */
export type AzureCapacityType = 'on-demand' | 'spot';

/** Options of {@link getAzureInstanceTypes}; every field is optional. */
export interface AzureInstanceTypeOptions {
  /** `NETWORK_PLUGIN`, default `azure`. */
  readonly networkPlugin?: NetworkPlugin;
  /** `NETWORK_PLUGIN_MODE`, default `overlay`. */
  readonly networkPluginMode?: NetworkPluginMode;
  /** `VM_MEMORY_OVERHEAD_PERCENT` as a fraction, default 0.075. */
  readonly vmMemoryOverheadPercent?: number;
  /** `AZURE_NODE_RESOURCE_GROUP`; when set, defines `kubernetes.azure.com/cluster` (normalised). */
  readonly nodeResourceGroup?: string;
  /**
   * Kubernetes version (`1.33` or `1.33.2`) used to resolve `AzureLinux` to Azure Linux 2 or 3 for
   * GPU driver support; defaults to the NodeClass `status.kubernetesVersion`, else Azure Linux 3.
   */
  readonly kubernetesVersion?: string;
  /** Prices; default: the shipped static table (spot = on-demand). */
  readonly pricing?: AzurePricing;
  /** Unavailable-offerings hook (ICE cache): true marks the offering `available: false`. */
  readonly isUnavailable?: (sku: string, zone: string, capacityType: AzureCapacityType) => boolean;
  /** VM sizes to build from; default: the shipped catalog ({@link allAzureSkus}). */
  readonly skus?: readonly AzureSku[];
}
