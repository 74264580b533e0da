/**
 * The `catalog` table: one row per instance type, cheapest first.
 */
import type { Cloud } from '../clouds/cloud.js';
import type { CatalogEntry } from '../clouds/catalog-view.js';
import { DefaultSpotPriceFactor, SpotPriceRefreshSeconds } from '@karpenter-ts/provider-aws';
import { MISSING_PRICE } from '@karpenter-ts/provider-azure';
import { renderTable } from './table.js';
import { formatCores, formatGiB, formatUsd } from './units.js';
import { cloudPlace } from './cloud-place.js';

/** Footnote marker of prices that are modelled spot prices (as `compare` marks them). */
const MODELLED = '¹';

/**
 * Renders catalog entries with capacity, allocatable, zones, capacity types and price. A price
 * that is a spot offering's below every on-demand offering of the type, on a cloud whose spot
 * prices are modelled (`cloud.spotPricing`), is marked ¹ and a footnote says how it was made.
 */
export function renderCatalogTable(cloud: Cloud, entries: readonly CatalogEntry[]): string {
  if (entries.length === 0) {
    return `No instance type in ${cloudPlace(cloud)} matches these requirements.\n`;
  }
  let marked = false;
  const rows = entries.map((entry) => {
    const it = entry.instanceType;
    const allocatable = it.allocatable();
    const available = entry.offerings.filter((o) => o.available);
    const modelled = modelledSpotPrice(cloud, entry);
    marked ||= modelled;
    return [
      it.name,
      entry.labels['kubernetes.io/arch'] ?? '',
      formatCores(it.capacity.cpu ?? 0),
      formatGiB(it.capacity.memory ?? 0),
      formatCores(allocatable.cpu ?? 0),
      formatGiB(allocatable.memory ?? 0),
      String(allocatable.pods ?? 0),
      unique(available.map((o) => o.zone)).join(','),
      unique(available.map((o) => o.capacityType)).join(','),
      `${formatUsd(entry.price)}${modelled ? MODELLED : ''}`,
    ];
  });
  const head = [
    'INSTANCE TYPE',
    'ARCH',
    'CPU',
    'MEMORY',
    'ALLOC CPU',
    'ALLOC MEMORY',
    'PODS',
    'ZONES',
    'CAPACITY TYPES',
    'USD/HOUR',
  ];
  const align = [
    'left',
    'left',
    'right',
    'right',
    'right',
    'right',
    'right',
    'left',
    'left',
    'right',
  ] as const;
  const spot =
    cloud.name === 'azure' &&
    entries.some((e) => e.offerings.some((o) => o.capacityType === 'spot'))
      ? 'Azure spot prices equal on-demand prices in the shipped data (no spot price table).\n'
      : '';
  const awsSpot =
    cloud.name === 'aws' && entries.some((e) => e.offerings.some((o) => o.capacityType === 'spot'))
      ? `${awsSpotPriceNote}\n`
      : '';
  const unpriced = cloud.name === 'azure' ? entries.filter((e) => e.price === MISSING_PRICE) : [];
  const placeholder =
    unpriced.length > 0
      ? `${unpriced.length} of these show ${formatUsd(MISSING_PRICE)}: no price in the shipped data (or a size outside upstream's known list), priced ${MISSING_PRICE} as upstream prices it, so they are chosen only when no priced size fits.\n`
      : '';
  const footnote = marked ? `${MODELLED} spot price, not observed: ${cloud.spotPricing}\n` : '';
  return `${renderTable(head, rows, align)}${entries.length} instance types in ${cloudPlace(cloud)}, cheapest available offering first.\n${spot}${placeholder}${awsSpot}${footnote}`;
}

/**
 * What the catalog's AWS spot prices are: the shipped model, which the controller
 * (`--provider aws`) replaces with DescribeSpotPriceHistory's at start and every 12 hours.
 */
export const awsSpotPriceNote = `AWS spot prices shown are the shipped model (${DefaultSpotPriceFactor} × on-demand); the controller replaces them with DescribeSpotPriceHistory's at start and every ${SpotPriceRefreshSeconds / 3600} hours.`;

/** Whether the entry's price is a modelled spot price, not an on-demand one. */
function modelledSpotPrice(cloud: Cloud, entry: CatalogEntry): boolean {
  if (cloud.spotPricing === undefined) return false;
  const cheapest = entry.offerings.find((o) => o.available && o.price === entry.price);
  if (cheapest?.capacityType !== 'spot') return false;
  return !entry.offerings.some((o) => o.capacityType !== 'spot' && o.price <= entry.price);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
