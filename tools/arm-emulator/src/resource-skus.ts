/**
 * The VM sizes the emulator sells, in the shape of ARM's Resource SKUs API
 * (`GET /subscriptions/{sub}/providers/Microsoft.Compute/skus`): one record per size with
 * `locations`, `locationInfo[].zones` and string-valued `capabilities`.
 *
 * The default catalog is built from `data/vm-skus.json`, a copy of the provider's 20 VM sizes
 * with real ARM capabilities (see data/README.md for the source).
 */
import { readFileSync } from 'node:fs';

/** One `capabilities[]` entry of a resource SKU (ARM reports every value as a string). */
export interface ResourceSkuCapability {
  readonly name: string;
  readonly value: string;
}

/** A `Microsoft.Compute/skus` record for a virtual machine size (the fields the emulator uses). */
export interface ResourceSku {
  readonly resourceType: 'virtualMachines';
  /** `Standard_D2s_v3`. */
  readonly name: string;
  readonly tier: string;
  /** `D2s_v3`. */
  readonly size: string;
  /** ARM quota family, `standardDSv3Family`. */
  readonly family: string;
  /** Region names, lower case. */
  readonly locations: readonly string[];
  readonly locationInfo: readonly { location: string; zones: readonly string[] }[];
  readonly capabilities: readonly ResourceSkuCapability[];
  readonly restrictions: readonly unknown[];
}

interface RawSku {
  name: string;
  size: string;
  tier: string;
  armFamily: string;
  vCPUs: number;
  vCPUsAvailable: number;
  memoryGiB: number;
  arch: 'amd64' | 'arm64';
  hyperVGenerations: string[];
  gpuCount: number;
  premiumIO: boolean;
  acceleratedNetworking: boolean;
  ephemeralOSDiskSupported: boolean;
  ephemeralOSDiskPlacements: string[];
  cachedDiskBytes: number | null;
  maxResourceVolumeMB: number | null;
  nvmeDiskSizeMiB: number | null;
  encryptionAtHostSupported: boolean;
  trustedLaunchCapable: boolean;
  lowPriorityCapable: boolean;
  ultraSSDAvailable: boolean;
  maxNetworkInterfaces: number;
  regions: Record<string, string[]>;
}

function toResourceSku(raw: RawSku): ResourceSku {
  const caps: [string, string | number | boolean | null | undefined][] = [
    ['vCPUs', raw.vCPUs],
    ['vCPUsAvailable', raw.vCPUsAvailable],
    ['MemoryGB', raw.memoryGiB],
    ['CpuArchitectureType', raw.arch === 'arm64' ? 'Arm64' : 'x64'],
    ['HyperVGenerations', raw.hyperVGenerations.join(',')],
    ['GPUs', raw.gpuCount > 0 ? raw.gpuCount : undefined],
    ['PremiumIO', raw.premiumIO ? 'True' : 'False'],
    ['AcceleratedNetworkingEnabled', raw.acceleratedNetworking ? 'True' : 'False'],
    ['EphemeralOSDiskSupported', raw.ephemeralOSDiskSupported ? 'True' : 'False'],
    [
      'SupportedEphemeralOSDiskPlacements',
      raw.ephemeralOSDiskPlacements.length > 0
        ? raw.ephemeralOSDiskPlacements.join(',')
        : undefined,
    ],
    ['CachedDiskBytes', raw.cachedDiskBytes],
    ['MaxResourceVolumeMB', raw.maxResourceVolumeMB],
    ['NvmeDiskSizeInMiB', raw.nvmeDiskSizeMiB],
    ['EncryptionAtHostSupported', raw.encryptionAtHostSupported ? 'True' : 'False'],
    ['TrustedLaunchDisabled', raw.trustedLaunchCapable ? 'False' : 'True'],
    ['LowPriorityCapable', raw.lowPriorityCapable ? 'True' : 'False'],
    ['UltraSSDAvailable', raw.ultraSSDAvailable ? 'True' : 'False'],
    ['MaxNetworkInterfaces', raw.maxNetworkInterfaces],
  ];
  const locations = Object.keys(raw.regions).sort();
  return {
    resourceType: 'virtualMachines',
    name: raw.name,
    tier: raw.tier,
    size: raw.size,
    family: raw.armFamily,
    locations,
    locationInfo: locations.map((location) => ({
      location,
      zones: [...(raw.regions[location] ?? [])],
    })),
    capabilities: caps
      .filter((c): c is [string, string | number | boolean] => c[1] !== undefined && c[1] !== null)
      .map(([name, value]) => ({ name, value: String(value) })),
    restrictions: [],
  };
}

let defaults: readonly ResourceSku[] | undefined;

/** The 20 VM sizes of `data/vm-skus.json` as resource SKUs (regions southcentralus, westcentralus). */
export function defaultResourceSkus(): readonly ResourceSku[] {
  if (defaults) return defaults;
  const file = JSON.parse(
    readFileSync(new URL('../data/vm-skus.json', import.meta.url), 'utf8'),
  ) as { skus: RawSku[] };
  defaults = file.skus.map(toResourceSku);
  return defaults;
}

/** The value of a capability, or undefined. */
export function capability(sku: ResourceSku, name: string): string | undefined {
  return sku.capabilities.find((c) => c.name === name)?.value;
}

/** A numeric capability (NaN-safe: undefined when absent or not a number). */
export function numericCapability(sku: ResourceSku, name: string): number | undefined {
  const v = capability(sku, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** vCPUs a VM of this size counts against quota. */
export function skuVCPUs(sku: ResourceSku): number {
  return numericCapability(sku, 'vCPUs') ?? 0;
}

/**
 * The largest ephemeral OS disk (decimal GB, floored) the size allows at a placement, ARM's rule:
 * NVMe disk size, cache disk bytes, or resource disk MiB; 0 when the placement is not supported.
 */
export function ephemeralOSDiskLimitGB(
  sku: ResourceSku,
  placement: 'NvmeDisk' | 'CacheDisk' | 'ResourceDisk',
): number {
  if (capability(sku, 'EphemeralOSDiskSupported') !== 'True') return 0;
  const placements = (capability(sku, 'SupportedEphemeralOSDiskPlacements') ?? '').split(',');
  if (!placements.includes(placement)) return 0;
  switch (placement) {
    case 'NvmeDisk':
      return Math.floor(((numericCapability(sku, 'NvmeDiskSizeInMiB') ?? 0) * 2 ** 20) / 1e9);
    case 'CacheDisk':
      return Math.floor((numericCapability(sku, 'CachedDiskBytes') ?? 0) / 1e9);
    case 'ResourceDisk':
      return Math.floor(((numericCapability(sku, 'MaxResourceVolumeMB') ?? 0) * 2 ** 20) / 1e9);
  }
}
