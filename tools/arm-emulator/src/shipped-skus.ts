/**
 * The emulator's default catalog: the whole VM size catalog shipped in @karpenter-ts/provider-azure
 * (`allAzureSkus()`, about 1700 sizes), sold where that catalog says Azure sells them, so a live
 * SKU refresh against the emulator gives the provider back the catalog it ships.
 *
 * - Locations of a size: those where the provider's static catalog offers it (`offeredInRegion`:
 *   its ARM zone data lists the region, or the shipped price table prices it there); about 1600
 *   sizes in eastus, 1460 in southcentralus. Sizes offered nowhere are not sold.
 * - Zones per location: the size's ARM zones when it has them, else zones 1-3 in regions with
 *   availability zones and none elsewhere (provider-azure `catalog/zones.ts`).
 * - Capabilities: the 20 sizes with real ARM records (provider-azure `data/vm-skus.json`) carry
 *   those records' values exactly; the others are written from the provider's normalised record
 *   (`AzureSku`), each value in ARM's string form, so that reading them back gives the same record.
 *   Their temp-disk figure is the smallest `MaxResourceVolumeMB` that reads back as the provider's
 *   ephemeral OS disk size (decimal GB, floored), not the documented MiB figure.
 *
 * Built on first use and memoised per process (about 0.1 s), never at import time.
 */
import {
  AzurePricing,
  allAzureSkus,
  armSkuRecords,
  defaultZones,
  offeredInRegion,
  type AzureSku,
  type RawArmSku,
} from '@karpenter-ts/provider-azure';
import type { ResourceSku, ResourceSkuCapability } from './resource-skus.js';

type CapabilityValue = string | number | boolean | null | undefined;

const MIB = 2 ** 20;
const GB = 1e9;

function armBool(v: boolean): string {
  return v ? 'True' : 'False';
}

function capabilities(entries: readonly [string, CapabilityValue][]): ResourceSkuCapability[] {
  return entries
    .filter((c): c is [string, string | number | boolean] => c[1] !== undefined && c[1] !== null)
    .map(([name, value]) => ({
      name,
      value: typeof value === 'boolean' ? armBool(value) : String(value),
    }));
}

/** Capabilities of a size with a real ARM record, from that record (every field it has). */
function recordCapabilities(raw: RawArmSku): ResourceSkuCapability[] {
  return capabilities([
    ['vCPUs', raw.vCPUs],
    ['vCPUsAvailable', raw.vCPUsAvailable],
    ['vCPUsPerCore', raw.vCPUsPerCore],
    ['MemoryGB', raw.memoryGiB],
    ['CpuArchitectureType', raw.arch === 'arm64' ? 'Arm64' : 'x64'],
    ['HyperVGenerations', raw.hyperVGenerations.join(',')],
    ['GPUs', raw.gpuCount > 0 ? raw.gpuCount : undefined],
    ['PremiumIO', raw.premiumIO],
    ['AcceleratedNetworkingEnabled', raw.acceleratedNetworking],
    ['EphemeralOSDiskSupported', raw.ephemeralOSDiskSupported],
    [
      'SupportedEphemeralOSDiskPlacements',
      raw.ephemeralOSDiskPlacements.length > 0
        ? raw.ephemeralOSDiskPlacements.join(',')
        : undefined,
    ],
    ['CachedDiskBytes', raw.cachedDiskBytes],
    ['MaxResourceVolumeMB', raw.maxResourceVolumeMB],
    ['NvmeDiskSizeInMiB', raw.nvmeDiskSizeMiB],
    ['EncryptionAtHostSupported', raw.encryptionAtHostSupported],
    ['TrustedLaunchDisabled', !raw.trustedLaunchCapable],
    ['LowPriorityCapable', raw.lowPriorityCapable],
    ['UltraSSDAvailable', raw.ultraSSDAvailable],
    ['ConfidentialComputingType', raw.confidentialComputingType],
    ['DiskControllerTypes', raw.diskControllerTypes],
    ['MaxNetworkInterfaces', raw.maxNetworkInterfaces],
  ]);
}

/** Capabilities of a size known from the provider's normalised record only. */
function skuCapabilities(sku: AzureSku): ResourceSkuCapability[] {
  const gb = sku.ephemeralOSMaxSizeGB;
  const placement = gb > 0 ? sku.ephemeralOSPlacement : undefined;
  // The smallest MiB / bytes figure whose floored decimal GB is `gb` (see the module comment).
  const mib = Math.ceil((gb * GB) / MIB);
  return capabilities([
    ['vCPUs', sku.vCPUs],
    ['vCPUsAvailable', sku.vCPUs],
    ['MemoryGB', sku.memoryGiB],
    ['CpuArchitectureType', sku.arch === 'arm64' ? 'Arm64' : 'x64'],
    ['HyperVGenerations', sku.hyperVGenerations.join(',')],
    ['GPUs', sku.gpuCount > 0 ? sku.gpuCount : undefined],
    ['PremiumIO', sku.premiumIO],
    ['AcceleratedNetworkingEnabled', sku.acceleratedNetworking],
    ['EphemeralOSDiskSupported', placement !== undefined],
    ['SupportedEphemeralOSDiskPlacements', placement],
    ['CachedDiskBytes', placement === 'CacheDisk' ? gb * GB : undefined],
    ['MaxResourceVolumeMB', placement === 'ResourceDisk' ? mib : 0],
    ['NvmeDiskSizeInMiB', placement === 'NvmeDisk' ? mib : undefined],
    ['EncryptionAtHostSupported', sku.encryptionAtHostSupported],
    ['TrustedLaunchDisabled', !sku.trustedLaunchCapable],
    ['LowPriorityCapable', sku.lowPriorityCapable],
    ['UltraSSDAvailable', sku.ultraSSDAvailable],
  ]);
}

function locationInfo(
  sku: AzureSku,
  regions: readonly string[],
  pricing: AzurePricing,
): { location: string; zones: readonly string[] }[] {
  const candidates = new Set([...Object.keys(sku.armZones ?? {}), ...regions]);
  return [...candidates]
    .filter((region) => offeredInRegion(sku, region, pricing))
    .sort()
    .map((location) => ({
      location,
      // Shared arrays: defaultZones returns one list per kind of region.
      zones: sku.armZones?.[location] ?? defaultZones(location),
    }));
}

let shipped: readonly ResourceSku[] | undefined;

/**
 * Every size of provider-azure's shipped catalog that it offers in at least one region, as
 * resource SKUs (no restrictions), sorted by name. Memoised; the records are frozen by contract
 * (readonly) and shared by every emulator of the process.
 */
export function shippedResourceSkus(): readonly ResourceSku[] {
  if (shipped) return shipped;
  const pricing = AzurePricing.fromStaticData();
  const regions = pricing.regions();
  const records = new Map(armSkuRecords().map((r) => [r.name, r]));
  const result: ResourceSku[] = [];
  for (const sku of allAzureSkus()) {
    const info = locationInfo(sku, regions, pricing);
    if (info.length === 0) continue;
    const raw = records.get(sku.name);
    result.push({
      resourceType: 'virtualMachines',
      name: sku.name,
      tier: raw?.tier ?? (sku.name.startsWith('Basic_') ? 'Basic' : 'Standard'),
      size: raw?.size ?? sku.name.replace(/^[A-Za-z]+_/, ''),
      ...(sku.armFamily ? { family: sku.armFamily } : {}),
      locations: info.map((i) => i.location),
      locationInfo: info,
      capabilities: raw ? recordCapabilities(raw) : skuCapabilities(sku),
      restrictions: [],
    });
  }
  shipped = result;
  return shipped;
}
