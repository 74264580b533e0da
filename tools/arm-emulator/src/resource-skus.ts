/**
 * The VM sizes the emulator sells, in the shape of ARM's Resource SKUs API
 * (`GET /subscriptions/{sub}/providers/Microsoft.Compute/skus`): one record per size with
 * `locations`, `locationInfo[].zones`, string-valued `capabilities` and `restrictions`, and the
 * readers of that shape the VM handlers use. The default catalog is in `shipped-skus.ts`.
 */

/** One `capabilities[]` entry of a resource SKU (ARM reports every value as a string). */
export interface ResourceSkuCapability {
  readonly name: string;
  readonly value: string;
}

/**
 * A restriction of a size for the subscription, ARM's shape: `Location` (not sold in the
 * listed locations) or `Zone` (not sold in `restrictionInfo.zones` of the listed locations).
 */
export interface ResourceSkuRestriction {
  readonly type: 'Location' | 'Zone';
  /** The locations it applies to (ARM repeats them in `restrictionInfo.locations`). */
  readonly values: readonly string[];
  readonly restrictionInfo: {
    readonly locations: readonly string[];
    /** `Zone` restrictions: the ARM zone numbers. */
    readonly zones?: readonly string[];
  };
  readonly reasonCode: 'QuotaId' | 'NotAvailableForSubscription';
}

/** A `Microsoft.Compute/skus` record for a virtual machine size (the fields the emulator uses). */
export interface ResourceSku {
  readonly resourceType: 'virtualMachines';
  /** `Standard_D2s_v3`. */
  readonly name: string;
  readonly tier: string;
  /** `D2s_v3`. */
  readonly size: string;
  /** ARM quota family, `standardDSv3Family`; absent when unknown. */
  readonly family?: string;
  /** Region names, lower case. */
  readonly locations: readonly string[];
  readonly locationInfo: readonly { location: string; zones: readonly string[] }[];
  readonly capabilities: readonly ResourceSkuCapability[];
  readonly restrictions: readonly ResourceSkuRestriction[];
}

/** A `Location` restriction: the subscription may not use the size in `location`. */
export function locationRestriction(
  location: string,
  reasonCode: ResourceSkuRestriction['reasonCode'] = 'NotAvailableForSubscription',
): ResourceSkuRestriction {
  return {
    type: 'Location',
    values: [location],
    restrictionInfo: { locations: [location] },
    reasonCode,
  };
}

/** A `Zone` restriction: the subscription may not use the size in `zones` of `location`. */
export function zoneRestriction(
  location: string,
  zones: readonly string[],
  reasonCode: ResourceSkuRestriction['reasonCode'] = 'NotAvailableForSubscription',
): ResourceSkuRestriction {
  return {
    type: 'Zone',
    values: [location],
    restrictionInfo: { locations: [location], zones: [...zones] },
    reasonCode,
  };
}

function restrictionCovers(r: ResourceSkuRestriction, location: string): boolean {
  return [...r.values, ...r.restrictionInfo.locations].some((l) => l.toLowerCase() === location);
}

/**
 * The zones of `location` the subscription may place the size in, or undefined when the size is
 * not sold there (not listed, or `Location`-restricted). `[]`: regional only.
 */
export function sellableZones(sku: ResourceSku, location: string): readonly string[] | undefined {
  const loc = location.toLowerCase();
  const info = sku.locationInfo.find((l) => l.location === loc);
  if (!info) return undefined;
  const covering = sku.restrictions.filter((r) => restrictionCovers(r, loc));
  if (covering.some((r) => r.type === 'Location')) return undefined;
  const blocked = new Set(
    covering.filter((r) => r.type === 'Zone').flatMap((r) => r.restrictionInfo.zones ?? []),
  );
  return blocked.size === 0 ? info.zones : info.zones.filter((z) => !blocked.has(z));
}

/**
 * The record as a location-filtered list answers it (`$filter=location eq '<location>'`): only
 * that location in `locations` and `locationInfo`, and only the restrictions naming it; undefined
 * when the size is not listed there. Restricted sizes are still listed, as ARM does.
 */
export function skuInLocation(sku: ResourceSku, location: string): ResourceSku | undefined {
  const loc = location.toLowerCase();
  const info = sku.locationInfo.find((l) => l.location === loc);
  if (!info) return undefined;
  return {
    ...sku,
    locations: [loc],
    locationInfo: [info],
    restrictions: sku.restrictions.filter((r) => restrictionCovers(r, loc)),
  };
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
