/**
 * The `catalog` table: one row per instance type, cheapest first.
 */
import type { Cloud } from '../clouds/cloud.js';
import type { CatalogEntry } from '../clouds/catalog-view.js';
import { renderTable } from './table.js';
import { formatCores, formatGiB, formatUsd } from './units.js';

/** Renders catalog entries with capacity, allocatable, zones, capacity types and price. */
export function renderCatalogTable(cloud: Cloud, entries: readonly CatalogEntry[]): string {
  if (entries.length === 0) {
    return `No instance type in ${cloud.name} ${cloud.region} matches these requirements.\n`;
  }
  const rows = entries.map((entry) => {
    const it = entry.instanceType;
    const allocatable = it.allocatable();
    const available = entry.offerings.filter((o) => o.available);
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
      formatUsd(entry.price),
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
  return `${renderTable(head, rows, align)}${entries.length} instance types in ${cloud.name} ${cloud.region}, cheapest available offering first.\n${spot}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
