/**
 * Label values of a VM size (as upstream `Azure/karpenter-provider-azure`): the single- or
 * multi-valued node labels an instance type defines, before offerings add zone, capacity type and
 * placement scope.
 */
import { AKSLabels, AzureLabels } from '../labels.js';
import { gpuSkuInfo } from '../catalog/gpu-registry.js';
import type { AzureSku } from '../catalog/sku.js';

/** Label key -> values (one value for most keys; `sku-hyperv-generation` may have two). */
export type SkuLabelValues = Readonly<Record<string, readonly string[]>>;

/** Memory in MiB the way upstream writes `sku-memory`: trunc(GiB × 1024). */
export function skuMemoryMiB(memoryGiB: number): number {
  return Math.trunc(memoryGiB * 1024);
}

/**
 * The `karpenter.azure.com/sku-*` label values and `kubernetes.io/arch` of a size. Keys whose value
 * does not exist for the size (ephemeral max size 0, GPU manufacturer/name on non-GPU sizes) are
 * omitted here; the requirements builder turns them into DoesNotExist.
 */
export function skuLabelValues(sku: AzureSku): SkuLabelValues {
  const name = sku.sizeName;
  const gpu = gpuSkuInfo(sku.name);
  const labels: Record<string, string[]> = {
    [AzureLabels.SKUName]: [sku.name],
    [AzureLabels.SKUCPU]: [String(sku.vCPUs)],
    [AzureLabels.SKUMemory]: [String(skuMemoryMiB(sku.memoryGiB))],
    [AzureLabels.SKUAcceleratedNetworking]: [String(sku.acceleratedNetworking)],
    [AzureLabels.SKUStoragePremiumCapable]: [String(sku.premiumIO)],
    [AzureLabels.SKUGPUCount]: [String(gpu ? sku.gpuCount : 0)],
    [AzureLabels.SKUHyperVGeneration]: sku.hyperVGenerations.map((g) => g.slice(1)),
    'kubernetes.io/arch': [sku.arch],
  };
  if (name) {
    labels[AzureLabels.SKUFamily] = [name.family];
    labels[AzureLabels.SKUSeries] = [name.series];
    labels[AzureLabels.SKUVersion] = [name.version];
  }
  if (sku.ephemeralOSMaxSizeGB > 0)
    labels[AzureLabels.SKUStorageEphemeralOSMaxSize] = [String(sku.ephemeralOSMaxSizeGB)];
  if (gpu) {
    labels[AzureLabels.SKUGPUManufacturer] = [gpu.manufacturer];
    if (name?.acceleratorType) labels[AzureLabels.SKUGPUName] = [name.acceleratorType];
  }
  return labels;
}

/** `kubernetes.azure.com/sku-cpu` and `/sku-memory`, same values as the karpenter.azure.com ones. */
export function aksSkuLabelValues(sku: AzureSku): SkuLabelValues {
  return {
    [AKSLabels.CPU]: [String(sku.vCPUs)],
    [AKSLabels.Memory]: [String(skuMemoryMiB(sku.memoryGiB))],
  };
}

/**
 * `kubernetes.azure.com/cluster` value: the node resource group with `(`/`)` replaced by `-`, cut to
 * 63 characters, and a trailing `-`, `_` or `.` followed by `z` so the value stays a valid label.
 */
export function clusterLabelValue(nodeResourceGroup: string): string {
  let v = nodeResourceGroup.replace(/[()]/g, '-');
  if (v.length > 63) v = v.slice(0, 63);
  if (/[-_.]$/.test(v)) v = v.length === 63 ? `${v.slice(0, 62)}z` : `${v}z`;
  return v;
}
