/**
 * VM sizes from the ARM Resource SKUs API (`GET /subscriptions/{id}/providers/Microsoft.Compute/skus`,
 * through @azure/arm-compute `resourceSkus.list` with a location filter), converted to the record
 * shape of `data/vm-skus.json` (capability names and units in data/README.md) and from there to
 * {@link AzureSku} by the same function the shipped records go through
 * ({@link azureSkuFromArmRecord}), so a live list and the shipped file cannot disagree on meaning.
 *
 * Upstream lists the SKUs of the cluster's region (skewer cache, refreshed every 12 h), keeps
 * `virtualMachines` entries, skips sizes with a `Location` restriction for the subscription in
 * that region and takes a size's zones minus its `Zone`-restricted ones. We do the same.
 */
import type { ResourceSku } from '@azure/arm-compute';
import { armErrorOf } from '../launch/arm-errors.js';
import { loadKnownSkus, type RawArmSku } from './data-files.js';
import { azureSkuFromArmRecord, type AzureSku } from './sku.js';

export type { RawArmSku } from './data-files.js';

/** What we need of the compute client (the real `ComputeManagementClient` satisfies it). */
export interface ResourceSkuLister {
  readonly resourceSkus: {
    list(options?: { filter?: string }): AsyncIterable<ResourceSku>;
  };
}

/**
 * A VM size record in the `vm-skus.json` shape, as converted from a live answer: the fields the
 * provider reads plus the ARM tier and vCPUs per core. `regions` maps each region the size may be
 * used in (lower case) to its unrestricted ARM zone numbers (empty: regional only).
 */
export interface ArmSkuRecord extends RawArmSku {
  readonly tier: string;
  readonly vCPUsPerCore: number;
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

// ARM writes booleans as the strings "True"/"False".
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

function restrictionLocations(r: NonNullable<ResourceSku['restrictions']>[number]): string[] {
  return (r.restrictionInfo?.locations ?? r.values ?? []).map((l) => l.toLowerCase());
}

/**
 * Converts one resource SKU of type `virtualMachines`; undefined for other resource types and
 * nameless entries. Regions with a `Location` restriction for the subscription are left out of
 * `regions`; zones with a `Zone` restriction are removed from their region's list (sorted).
 * `knownSKU` is whether `knownSkus` holds the name (upstream prices unknown sizes at 999).
 * Capabilities ARM omits read as 0 / false / null (`vCPUsAvailable` defaults to `vCPUs`).
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
    if (r.type === 'Location') for (const l of restrictionLocations(r)) restrictedLocations.add(l);
    if (r.type === 'Zone') {
      for (const l of restrictionLocations(r)) {
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
  const maxNics = num(caps, 'MaxNetworkInterfaces');
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
    ...(maxNics !== null ? { maxNetworkInterfaces: maxNics } : {}),
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
 * The `$filter` of a one-region Resource SKUs list: `location eq '<region>'`.
 * @throws Error naming the region when it is not an ARM region name (letters and digits).
 */
export function resourceSkusLocationFilter(region: string): string {
  if (!/^[a-z0-9]+$/i.test(region))
    throw new Error(`region: "${region}" is not an ARM region name such as "eastus"`);
  return `location eq '${region}'`;
}

/**
 * Lists the VM sizes of each region (one `resourceSkus.list` call per region with
 * {@link resourceSkusLocationFilter}, paged by the SDK) and merges them by name, combining their
 * region maps; sorted by name. A size restricted in every listed region is kept with no region
 * (the refresh tool merges records into a file). Rejects with the SDK's error when a call fails.
 */
export async function listArmSkus(
  client: ResourceSkuLister,
  regions: readonly string[],
  knownSkus: ReadonlySet<string>,
): Promise<ArmSkuRecord[]> {
  const byName = new Map<string, ArmSkuRecord>();
  for (const region of regions) {
    const filter = resourceSkusLocationFilter(region);
    for await (const sku of client.resourceSkus.list({ filter })) {
      const record = toArmSkuRecord(sku, knownSkus);
      if (!record) continue;
      const existing = byName.get(record.name);
      byName.set(
        record.name,
        existing ? { ...existing, regions: { ...existing.regions, ...record.regions } } : record,
      );
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The VM sizes ARM sells the subscription in `region`, as the provider's {@link AzureSku}s
 * (sorted by name), for the periodic SKU refresh: one `resourceSkus.list` with the location filter
 * (e.g. `clients.compute`), each `virtualMachines` entry converted exactly as the shipped
 * `vm-skus.json` records are. Sizes with a `Location` restriction there are dropped; restricted
 * zones are removed; `armZones` holds only `region`. `knownSKU` comes from the shipped
 * known-skus.json. No filtering beyond that (AKS exclusions happen when instance types are built).
 *
 * Rejects with an Error naming the region, ARM's error code and the HTTP status when the call
 * fails (the SDK error as `cause`), and for a malformed region name. An empty result resolves
 * `[]`; the caller decides what that means.
 */
export async function listRegionAzureSkus(
  client: ResourceSkuLister,
  region: string,
): Promise<AzureSku[]> {
  const location = region.toLowerCase();
  const filter = resourceSkusLocationFilter(location);
  const known = new Set(loadKnownSkus().map((k) => k.name));
  let records: ArmSkuRecord[];
  try {
    records = await listArmSkus(client, [location], known);
  } catch (err) {
    const arm = armErrorOf(err);
    if (!arm) throw err;
    const status = arm.statusCode === undefined ? '' : ` (HTTP ${arm.statusCode})`;
    throw new Error(
      `listing the VM sizes of ${location} (${filter}) failed: ${arm.code}${status}: ${arm.message}`,
      { cause: err },
    );
  }
  return records.filter((r) => location in r.regions).map((r) => azureSkuFromArmRecord(r));
}
