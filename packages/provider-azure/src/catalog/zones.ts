/**
 * Availability zones per region when the catalog has no per-size zone data.
 *
 * Rule (documented in the README): a size's zones in a region come from its ARM resource-SKU
 * record when we have one (data/vm-skus.json `regions`; an empty list there means the size is
 * regional-only in that region). Otherwise the size is assumed to be offered in zones 1, 2 and 3
 * of every region that has availability zones, and regionally only elsewhere. Every size also gets
 * a regional offering (zone `0`), as upstream does.
 *
 * The region list is Microsoft's published set of regions with availability zones (public
 * fact, checked against "Azure regions with availability zone support"); the live refresh
 * (tools/refresh-azure-catalog) replaces the guess with ARM's per-size zone lists.
 */

/** Regions with availability zones 1, 2 and 3 (ARM region names). */
export const ZONAL_REGIONS: ReadonlySet<string> = new Set([
  // Americas
  'brazilsouth',
  'canadacentral',
  'centralus',
  'chilecentral',
  'eastus',
  'eastus2',
  'mexicocentral',
  'southcentralus',
  'westus2',
  'westus3',
  // Europe
  'austriaeast',
  'francecentral',
  'germanywestcentral',
  'italynorth',
  'northeurope',
  'norwayeast',
  'polandcentral',
  'spaincentral',
  'swedencentral',
  'switzerlandnorth',
  'uksouth',
  'westeurope',
  // Middle East and Africa
  'israelcentral',
  'qatarcentral',
  'uaenorth',
  'southafricanorth',
  // Asia Pacific
  'australiaeast',
  'centralindia',
  'eastasia',
  'indonesiacentral',
  'japaneast',
  'japanwest',
  'koreacentral',
  'malaysiawest',
  'newzealandnorth',
  'southeastasia',
]);

/** The zone label value for the regional (non-zonal) offering, as upstream writes it. */
export const REGIONAL_ZONE = '0';

/** The zone label value of an ARM zone number: `<region>-<n>` (e.g. `eastus-1`). */
export function zoneLabel(region: string, zone: string): string {
  return `${region}-${zone}`;
}

/** ARM zone numbers assumed for a size without per-size zone data in `region`. */
export function defaultZones(region: string): readonly string[] {
  return ZONAL_REGIONS.has(region) ? ['1', '2', '3'] : [];
}
