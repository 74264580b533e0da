/**
 * The GPU registry: the GPU sizes AKS supports, their manufacturer, the node OSes with drivers
 * for them and whether AKS installs the driver (data/gpu-skus.json, from upstream's
 * supported-gpus list). A size with GPUs that is not in the registry is not offered at all.
 */
import { loadGpuSkus, type RawGpuSku } from './data-files.js';

/** Registry entry of a GPU size. */
export interface GpuSkuInfo {
  readonly manufacturer: 'nvidia' | 'amd';
  /** OS keys with drivers: `ubuntu`, `windows`, `azurelinux` (Azure Linux 2), `azurelinux3`. */
  readonly os: readonly string[];
  /** NVIDIA driver flavour (`cuda`, `cuda-lts`, `grid`, `grid-v20`); null for AMD. */
  readonly nvidiaDriverType: string | null;
  /** AKS installs the driver (NVIDIA only); gpu.mode `Driver` keeps only these. */
  readonly driverInstallSupported: boolean;
}

let registry: Map<string, GpuSkuInfo> | undefined;

/** Registry entry for an ARM size name (case-insensitive), or undefined when not a registry GPU size. */
export function gpuSkuInfo(skuName: string): GpuSkuInfo | undefined {
  registry ??= new Map(loadGpuSkus().map((g: RawGpuSku) => [g.sku.toLowerCase(), g]));
  return registry.get(skuName.toLowerCase());
}
