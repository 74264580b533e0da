/**
 * Lazy, memoised loading of the JSON data files shipped in `packages/provider-azure/data/`
 * (sources in data/README.md). Files are read on first use, never at import time, so importing
 * the package stays cheap. Paths resolve relative to this module, which sits two levels below the
 * package root both in `src/` and in `dist/`.
 */
import { readFileSync } from 'node:fs';

/** One SKU of `vm-skus.json`: full ARM resource-SKU capabilities (see data/README.md for units). */
export interface RawArmSku {
  readonly name: string;
  readonly size: string;
  /** ARM SKU tier, `Standard`. */
  readonly tier?: string;
  readonly armFamily: string;
  readonly vCPUs: number;
  readonly vCPUsAvailable: number;
  /** vCPUs per physical core (2 with hyperthreading). */
  readonly vCPUsPerCore?: number;
  /** `MaxNetworkInterfaces` capability (count); in the shipped file, not read by the provider. */
  readonly maxNetworkInterfaces?: number;
  readonly memoryGiB: number;
  readonly arch: 'amd64' | 'arm64';
  readonly hyperVGenerations: readonly ('V1' | 'V2')[];
  readonly gpuCount: number;
  readonly premiumIO: boolean;
  readonly acceleratedNetworking: boolean;
  readonly ephemeralOSDiskSupported: boolean;
  readonly ephemeralOSDiskPlacements: readonly string[];
  readonly cachedDiskBytes: number | null;
  readonly maxResourceVolumeMB: number | null;
  readonly nvmeDiskSizeMiB: number | null;
  readonly encryptionAtHostSupported: boolean;
  readonly trustedLaunchCapable: boolean;
  readonly lowPriorityCapable: boolean;
  readonly ultraSSDAvailable: boolean;
  readonly confidentialComputingType: string | null;
  readonly diskControllerTypes: string | null;
  readonly knownSKU: boolean;
  /** Reference figure of the shipped file; absent after a live refresh. */
  readonly providerExcludedReasons?: readonly string[];
  /** Reference figure of the shipped file; absent after a live refresh. */
  readonly labels?: Readonly<Record<string, string | readonly string[]>>;
  /** Reference figure of the shipped file; absent after a live refresh. */
  readonly overhead?: {
    readonly kubeReservedCPUm: number;
    readonly kubeReservedMemoryMi: number;
    readonly evictionMemoryMi: number;
    readonly capacityMemoryBytes: number;
    readonly allocatableCPUm: number;
    readonly allocatableMemoryBytes: number;
  };
  /** region -> ARM zone numbers (empty list: regional only). */
  readonly regions: Readonly<Record<string, readonly string[]>>;
}

/** One record of `vm-sizes.json` (capacity facts for 1789 sizes; fields absent when unknown). */
export interface RawVMSize {
  readonly name: string;
  readonly family?: string;
  readonly series?: string;
  readonly vCPUs?: number;
  readonly vCPUsQuota?: number;
  readonly memoryGiB?: number;
  readonly arch?: 'amd64' | 'arm64';
  readonly gpuCount?: number;
  readonly tempDiskGiB?: number;
  readonly premiumIO?: boolean;
  readonly acceleratedNetworking?: boolean;
  readonly hyperVGenerations?: readonly ('V1' | 'V2')[];
  readonly constrainedFrom?: string;
  readonly pricingKeys?: readonly string[];
}

/** One record of `known-skus.json`: a size name AKS's provider knows, parsed. */
export interface RawKnownSku {
  readonly name: string;
  readonly armFamily: string;
  readonly parseable: boolean;
}

/** One record of `gpu-skus.json`: the provider's GPU registry. */
export interface RawGpuSku {
  /** Lowercase ARM name. */
  readonly sku: string;
  readonly manufacturer: 'nvidia' | 'amd';
  /** `ubuntu`, `windows`, `azurelinux` (v2), `azurelinux3`. */
  readonly os: readonly string[];
  readonly nvidiaDriverType: string | null;
  readonly driverInstallSupported: boolean;
}

/** `pricing.json`: on-demand Linux USD/hour per region and size name. */
export interface RawPricing {
  readonly generatedAt: string;
  readonly onDemand: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Spot table; null in the shipped file (no spot prices), set by a live refresh. */
  readonly spot?: Readonly<Record<string, Readonly<Record<string, number>>>> | null;
}

function loader<T>(file: string): () => T {
  let cached: T | undefined;
  return () => {
    if (cached === undefined) {
      const url = new URL(`../../data/${file}`, import.meta.url);
      cached = JSON.parse(readFileSync(url, 'utf8')) as T;
    }
    return cached;
  };
}

/** `vm-skus.json` SKUs (20 sizes with full ARM capabilities). */
export const loadArmSkus = (
  (load) => () =>
    load().skus
)(loader<{ skus: RawArmSku[] }>('vm-skus.json'));
/** `vm-sizes.json` records. */
export const loadVMSizes = (
  (load) => () =>
    load().skus
)(loader<{ skus: RawVMSize[] }>('vm-sizes.json'));
/** `known-skus.json` records. */
export const loadKnownSkus = (
  (load) => () =>
    load().skus
)(loader<{ skus: RawKnownSku[] }>('known-skus.json'));
/** `gpu-skus.json` records. */
export const loadGpuSkus = (
  (load) => () =>
    load().skus
)(loader<{ skus: RawGpuSku[] }>('gpu-skus.json'));
/** `pricing.json`. */
export const loadPricing = loader<RawPricing>('pricing.json');
