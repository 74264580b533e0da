/**
 * The normalised VM size record the instance-type builder works from, and how it is assembled
 * from the shipped data:
 *
 * - `vm-skus.json` (20 sizes) carries real ARM resource-SKU capabilities; those records win.
 * - `vm-sizes.json` (1789 sizes) carries vCPU, memory, GPU count, arch, premium IO, accelerated
 *   networking, Hyper-V generations and temp disk size. Capabilities ARM would report but that
 *   file lacks are inferred by the rules in {@link inferCapabilities} and listed in `inferred`.
 * - `known-skus.json` says which names upstream knows (unknown names are priced at 999).
 */
import {
  loadArmSkus,
  loadKnownSkus,
  loadVMSizes,
  type RawArmSku,
  type RawVMSize,
} from './data-files.js';
import { parseVMSizeName, type VMSizeName } from './size-name.js';

/** Where an ephemeral OS disk is placed on a size. */
export type EphemeralOSPlacement = 'NvmeDisk' | 'CacheDisk' | 'ResourceDisk';

/** A VM size with the capabilities Karpenter's Azure provider uses. */
export interface AzureSku {
  /** ARM name, `Standard_D4s_v5`. */
  readonly name: string;
  /** Parsed name; undefined when the name does not parse (such sizes are excluded). */
  readonly sizeName: VMSizeName | undefined;
  /** ARM quota family (`standardDSv5Family`), when known. */
  readonly armFamily: string | undefined;
  /** vCPUs capability (for constrained sizes ARM reports the parent's count). */
  readonly vCPUs: number;
  /** GiB (ARM's `MemoryGB` capability is GiB). */
  readonly memoryGiB: number;
  readonly arch: 'amd64' | 'arm64';
  readonly hyperVGenerations: readonly ('V1' | 'V2')[];
  /** GPUs capability (count). */
  readonly gpuCount: number;
  readonly premiumIO: boolean;
  readonly acceleratedNetworking: boolean;
  /** Largest ephemeral OS disk, decimal GB (floored); 0 when not supported. */
  readonly ephemeralOSMaxSizeGB: number;
  readonly ephemeralOSPlacement: EphemeralOSPlacement | undefined;
  readonly encryptionAtHostSupported: boolean;
  readonly trustedLaunchCapable: boolean;
  /** Spot (low priority) capable. */
  readonly lowPriorityCapable: boolean;
  readonly ultraSSDAvailable: boolean;
  /** region -> ARM zone numbers, only for sizes with ARM data (empty list: regional only). */
  readonly armZones: Readonly<Record<string, readonly string[]>> | undefined;
  /** Listed in upstream's known SKU list (unknown sizes are priced 999). */
  readonly knownSKU: boolean;
  /** `arm`: capabilities from ARM resource SKUs; `sizes`: from vm-sizes.json plus inference. */
  readonly capabilitySource: 'arm' | 'sizes';
  /** Capability fields that were inferred rather than read (empty for ARM records). */
  readonly inferred: readonly string[];
}

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const GB = 1e9;

/**
 * Largest ephemeral OS disk and its placement from ARM capabilities, upstream's way: the NVMe
 * disk when `NvmeDisk` is a supported placement and has a size, else the cache disk, else the
 * resource (temp) disk; decimal GB, floored; 0 when ephemeral OS disks are unsupported.
 */
export function ephemeralOSDisk(sku: RawArmSku): {
  sizeGB: number;
  placement: EphemeralOSPlacement | undefined;
} {
  if (!sku.ephemeralOSDiskSupported) return { sizeGB: 0, placement: undefined };
  if (sku.ephemeralOSDiskPlacements.includes('NvmeDisk') && (sku.nvmeDiskSizeMiB ?? 0) > 0) {
    return { sizeGB: Math.floor(((sku.nvmeDiskSizeMiB ?? 0) * MIB) / GB), placement: 'NvmeDisk' };
  }
  if ((sku.cachedDiskBytes ?? 0) > 0) {
    return { sizeGB: Math.floor((sku.cachedDiskBytes ?? 0) / GB), placement: 'CacheDisk' };
  }
  if ((sku.maxResourceVolumeMB ?? 0) > 0) {
    return {
      sizeGB: Math.floor(((sku.maxResourceVolumeMB ?? 0) * MIB) / GB),
      placement: 'ResourceDisk',
    };
  }
  return { sizeGB: 0, placement: undefined };
}

/**
 * The AzureSku of an ARM resource-SKU record (a `vm-skus.json` record, or one converted from a
 * live Resource SKUs answer by `toArmSkuRecord`): capabilities are read as they are, nothing is
 * inferred (`capabilitySource: 'arm'`); `armZones` is the record's region -> zones map; an empty
 * ARM family becomes undefined.
 */
export function azureSkuFromArmRecord(raw: RawArmSku): AzureSku {
  const eph = ephemeralOSDisk(raw);
  return {
    name: raw.name,
    sizeName: parseVMSizeName(raw.name),
    armFamily: raw.armFamily || undefined,
    vCPUs: raw.vCPUs,
    memoryGiB: raw.memoryGiB,
    arch: raw.arch,
    hyperVGenerations: raw.hyperVGenerations,
    gpuCount: raw.gpuCount,
    premiumIO: raw.premiumIO,
    acceleratedNetworking: raw.acceleratedNetworking,
    ephemeralOSMaxSizeGB: eph.sizeGB,
    ephemeralOSPlacement: eph.placement,
    encryptionAtHostSupported: raw.encryptionAtHostSupported,
    trustedLaunchCapable: raw.trustedLaunchCapable,
    lowPriorityCapable: raw.lowPriorityCapable,
    ultraSSDAvailable: raw.ultraSSDAvailable,
    armZones: raw.regions,
    knownSKU: raw.knownSKU,
    capabilitySource: 'arm',
    inferred: [],
  };
}

/**
 * Capabilities vm-sizes.json lacks, inferred from what it has (documented in the README):
 * - ephemeral OS disk: supported on the temp (resource) disk when the size has one; size = temp
 *   disk in decimal GB, floored (ARM may allow more through the cache disk; this is the safe side);
 * - encryption at host: premium-storage sizes and all v5+ sizes;
 * - trusted launch: Gen2-capable amd64 sizes;
 * - spot: every size except the B (burstable) family and `_Promo` sizes (Azure refuses spot there);
 * - ultra SSD: false (unknown, so never promised);
 * - Hyper-V generations: `V1` when the docs list none (previous-generation series).
 */
export function inferCapabilities(
  raw: RawVMSize,
  sizeName: VMSizeName | undefined,
): Omit<
  AzureSku,
  | 'name'
  | 'sizeName'
  | 'armFamily'
  | 'vCPUs'
  | 'memoryGiB'
  | 'gpuCount'
  | 'armZones'
  | 'knownSKU'
  | 'capabilitySource'
> {
  const hyperVGenerations = raw.hyperVGenerations ?? ['V1'];
  const arch = raw.arch ?? 'amd64';
  const premiumIO = raw.premiumIO ?? false;
  const tempGiB = raw.tempDiskGiB ?? 0;
  const version = Number(sizeName?.version ?? '1');
  const inferred = [
    'ephemeralOSDisk',
    'encryptionAtHost',
    'trustedLaunch',
    'lowPriority',
    'ultraSSD',
  ];
  if (raw.hyperVGenerations === undefined) inferred.push('hyperVGenerations');
  if (raw.acceleratedNetworking === undefined) inferred.push('acceleratedNetworking');
  return {
    arch,
    hyperVGenerations,
    premiumIO,
    acceleratedNetworking: raw.acceleratedNetworking ?? false,
    ephemeralOSMaxSizeGB: tempGiB > 0 ? Math.floor((tempGiB * GIB) / GB) : 0,
    ephemeralOSPlacement: tempGiB > 0 ? 'ResourceDisk' : undefined,
    encryptionAtHostSupported: premiumIO || version >= 5,
    trustedLaunchCapable: hyperVGenerations.includes('V2') && arch === 'amd64',
    lowPriorityCapable: sizeName !== undefined && sizeName.family !== 'B' && !sizeName.promo,
    ultraSSDAvailable: false,
    inferred,
  };
}

function fromSizes(raw: RawVMSize, known: boolean): AzureSku | undefined {
  if (raw.vCPUs === undefined || raw.memoryGiB === undefined) return undefined;
  const sizeName = parseVMSizeName(raw.name);
  return {
    name: raw.name,
    sizeName,
    armFamily: raw.family,
    // ARM's vCPUs capability of a constrained size is the parent's count; keep ARM's meaning.
    vCPUs: raw.vCPUsQuota ?? raw.vCPUs,
    memoryGiB: raw.memoryGiB,
    gpuCount: raw.gpuCount ?? 0,
    armZones: undefined,
    knownSKU: known,
    capabilitySource: 'sizes',
    ...inferCapabilities(raw, sizeName),
  };
}

let all: readonly AzureSku[] | undefined;

/**
 * Every VM size with vCPU and memory known, sorted by name; ARM records replace vm-sizes.json
 * records of the same name. No filtering here (see `instancetype/filters.ts`).
 */
export function allAzureSkus(): readonly AzureSku[] {
  if (all) return all;
  const known = new Set(loadKnownSkus().map((k) => k.name));
  const byName = new Map<string, AzureSku>();
  for (const raw of loadVMSizes()) {
    const sku = fromSizes(raw, known.has(raw.name));
    if (sku) byName.set(sku.name, sku);
  }
  for (const raw of loadArmSkus()) byName.set(raw.name, azureSkuFromArmRecord(raw));
  all = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return all;
}

/** The raw ARM records of data/vm-skus.json (for tests and tools that check figures against them). */
export function armSkuRecords(): readonly RawArmSku[] {
  return loadArmSkus();
}
