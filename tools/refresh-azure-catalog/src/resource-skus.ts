/**
 * VM size capabilities from the ARM Resource SKUs API (`Microsoft.Compute/skus`, through
 * @azure/arm-compute `resourceSkus.list` with a location filter), converted to the record shape of
 * packages/provider-azure/data/vm-skus.json (capability names and units as documented in that
 * package's data/README.md).
 */
import type { ResourceSku } from '@azure/arm-compute';

/** What we need of the compute client (the real `ComputeManagementClient` satisfies it). */
export interface ResourceSkuLister {
  readonly resourceSkus: { list(options?: { filter?: string }): AsyncIterable<ResourceSku> };
}

/** A VM size record in the vm-skus.json shape (the fields the provider reads). */
export interface ArmSkuRecord {
  name: string;
  size: string;
  tier: string;
  armFamily: string;
  vCPUs: number;
  vCPUsAvailable: number;
  vCPUsPerCore: number;
  memoryGiB: number;
  arch: 'amd64' | 'arm64';
  hyperVGenerations: ('V1' | 'V2')[];
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
  confidentialComputingType: string | null;
  diskControllerTypes: string | null;
  knownSKU: boolean;
  /** region -> unrestricted ARM zone numbers (empty: regional only). */
  regions: Record<string, string[]>;
}

function capabilityMap(sku: ResourceSku): Map<string, string> {
  return new Map((sku.capabilities ?? []).map((c) => [c.name ?? '', c.value ?? '']));
}

function num(caps: Map<string, string>, name: string): number | null {
  const v = caps.get(name);
  if (v === undefined || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function flag(caps: Map<string, string>, name: string): boolean {
  return caps.get(name)?.toLowerCase() === 'true';
}

function list(caps: Map<string, string>, name: string): string[] {
  const v = caps.get(name);
  return v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

/**
 * Converts one `virtualMachines` resource SKU. Regions with a `Location` restriction for the
 * subscription are left out (upstream skips such SKUs there); zones with a `Zone` restriction are
 * removed from the region's list. Returns undefined for other resource types.
 */
export function toArmSkuRecord(
  sku: ResourceSku,
  knownSkus: ReadonlySet<string>,
): ArmSkuRecord | undefined {
  if (sku.resourceType !== 'virtualMachines' || !sku.name) return undefined;
  const caps = capabilityMap(sku);
  const restrictedLocations = new Set<string>();
  const restrictedZones = new Map<string, Set<string>>();
  for (const r of sku.restrictions ?? []) {
    const locations = (r.restrictionInfo?.locations ?? r.values ?? []).map((l) => l.toLowerCase());
    if (r.type === 'Location') for (const l of locations) restrictedLocations.add(l);
    if (r.type === 'Zone') {
      for (const l of locations) {
        const zones = restrictedZones.get(l) ?? new Set<string>();
        for (const z of r.restrictionInfo?.zones ?? []) zones.add(z);
        restrictedZones.set(l, zones);
      }
    }
  }
  const regions: Record<string, string[]> = {};
  for (const info of sku.locationInfo ?? []) {
    const location = (info.location ?? '').toLowerCase();
    if (!location || restrictedLocations.has(location)) continue;
    const blocked = restrictedZones.get(location) ?? new Set<string>();
    regions[location] = (info.zones ?? []).filter((z) => !blocked.has(z)).sort();
  }
  const hyperV = list(caps, 'HyperVGenerations').filter(
    (g): g is 'V1' | 'V2' => g === 'V1' || g === 'V2',
  );
  const vCPUs = num(caps, 'vCPUs') ?? 0;
  return {
    name: sku.name,
    size: sku.size ?? sku.name.replace(/^Standard_/, ''),
    tier: sku.tier ?? '',
    armFamily: sku.family ?? '',
    vCPUs,
    vCPUsAvailable: num(caps, 'vCPUsAvailable') ?? vCPUs,
    vCPUsPerCore: num(caps, 'vCPUsPerCore') ?? 1,
    memoryGiB: num(caps, 'MemoryGB') ?? 0,
    arch: caps.get('CpuArchitectureType') === 'Arm64' ? 'arm64' : 'amd64',
    hyperVGenerations: hyperV,
    gpuCount: num(caps, 'GPUs') ?? 0,
    premiumIO: flag(caps, 'PremiumIO'),
    acceleratedNetworking: flag(caps, 'AcceleratedNetworkingEnabled'),
    ephemeralOSDiskSupported: flag(caps, 'EphemeralOSDiskSupported'),
    ephemeralOSDiskPlacements: list(caps, 'SupportedEphemeralOSDiskPlacements'),
    cachedDiskBytes: num(caps, 'CachedDiskBytes'),
    maxResourceVolumeMB: num(caps, 'MaxResourceVolumeMB'),
    nvmeDiskSizeMiB: num(caps, 'NvmeDiskSizeInMiB'),
    encryptionAtHostSupported: flag(caps, 'EncryptionAtHostSupported'),
    trustedLaunchCapable: hyperV.includes('V2') && !flag(caps, 'TrustedLaunchDisabled'),
    lowPriorityCapable: flag(caps, 'LowPriorityCapable'),
    ultraSSDAvailable:
      flag(caps, 'UltraSSDAvailable') ||
      (sku.locationInfo ?? []).some((i) =>
        (i.zoneDetails ?? []).some((d) =>
          (d.capabilities ?? []).some(
            (c) => c.name === 'UltraSSDAvailable' && c.value?.toLowerCase() === 'true',
          ),
        ),
      ),
    confidentialComputingType: caps.get('ConfidentialComputingType') ?? null,
    diskControllerTypes: caps.get('DiskControllerTypes') ?? null,
    knownSKU: knownSkus.has(sku.name),
    regions,
  };
}

/**
 * Lists the VM sizes of each region (one `resourceSkus.list` call per region with the filter
 * `location eq '<region>'`, paged by the SDK) and merges them by name, combining their region maps.
 */
export async function listArmSkus(
  client: ResourceSkuLister,
  regions: readonly string[],
  knownSkus: ReadonlySet<string>,
): Promise<ArmSkuRecord[]> {
  const byName = new Map<string, ArmSkuRecord>();
  for (const region of regions) {
    for await (const sku of client.resourceSkus.list({ filter: `location eq '${region}'` })) {
      const record = toArmSkuRecord(sku, knownSkus);
      if (!record) continue;
      const existing = byName.get(record.name);
      if (existing) Object.assign(existing.regions, record.regions);
      else byName.set(record.name, record);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
