/**
 * Reading and writing the provider's data files (packages/provider-azure/data): refreshed regions
 * replace their old entries, other regions are kept, so a partial refresh never loses data.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArmSkuRecord } from '@karpenter-ts/provider-azure';
import type { PriceTable, RetailPrices } from './retail-prices.js';

/** Shape of pricing.json (on-demand and, once refreshed live, spot). */
export interface PricingFile {
  source: string;
  generatedAt: string;
  currency: 'USD';
  unit: 'per VM-hour';
  priceType: string;
  spot: PriceTable | null;
  onDemand: PriceTable;
  [extra: string]: unknown;
}

function readJson<T>(path: string): T | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : undefined;
}

/** Size names of known-skus.json in `dir` (empty when the file is absent). */
export function readKnownSkus(dir: string): Set<string> {
  const file = readJson<{ skus: { name: string }[] }>(join(dir, 'known-skus.json'));
  return new Set((file?.skus ?? []).map((s) => s.name));
}

/** Regions priced in `dir`/pricing.json (empty when absent). */
export function readPricedRegions(dir: string): string[] {
  return Object.keys(readJson<PricingFile>(join(dir, 'pricing.json'))?.onDemand ?? {}).sort();
}

/** Merges fetched prices into `dir`/pricing.json (regions fetched replace their tables). */
export function writePricing(dir: string, prices: RetailPrices, now: Date): PricingFile {
  const path = join(dir, 'pricing.json');
  const old = readJson<PricingFile>(path);
  const onDemand: PriceTable = { ...(old?.onDemand ?? {}), ...prices.onDemand };
  const spot: PriceTable = { ...(old?.spot ?? {}), ...prices.spot };
  const file: PricingFile = {
    source: `Azure Retail Prices API (prices.azure.com, refreshed by tools/refresh-azure-catalog)`,
    generatedAt: now.toISOString(),
    currency: 'USD',
    unit: 'per VM-hour',
    priceType: 'Consumption (Linux); spot from " Spot" meters',
    spot: Object.keys(spot).length > 0 ? sortTable(spot) : null,
    onDemand: sortTable(onDemand),
  };
  writeFileSync(path, JSON.stringify(file));
  return file;
}

/** Merges ARM SKU records into `dir`/vm-skus.json (same-name records: region maps combined, fields replaced). */
export function writeArmSkus(dir: string, skus: readonly ArmSkuRecord[], now: Date): number {
  const path = join(dir, 'vm-skus.json');
  const old = readJson<{ skus: ArmSkuRecord[] }>(path);
  const byName = new Map<string, ArmSkuRecord>((old?.skus ?? []).map((s) => [s.name, s]));
  for (const sku of skus) {
    const prev = byName.get(sku.name);
    byName.set(
      sku.name,
      prev ? { ...prev, ...sku, regions: { ...prev.regions, ...sku.regions } } : sku,
    );
  }
  const records = [...byName.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const header = JSON.stringify({
    source:
      'ARM Resource SKUs API (Microsoft.Compute/skus), refreshed by tools/refresh-azure-catalog',
    generatedAt: now.toISOString(),
  }).slice(0, -1);
  writeFileSync(
    path,
    `${header},"skus":[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]}\n`,
  );
  return records.length;
}

function sortTable(table: PriceTable): PriceTable {
  return Object.fromEntries(
    Object.keys(table)
      .sort()
      .map((region) => [
        region,
        Object.fromEntries(
          Object.entries(table[region] ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)),
        ),
      ]),
  );
}
