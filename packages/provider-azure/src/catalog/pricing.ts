/**
 * VM prices in USD per hour, per region and size name.
 *
 * Model (follows upstream `Azure/karpenter-provider-azure`'s pricing provider):
 * - On-demand prices come from the static table in data/pricing.json (Linux consumption prices,
 *   57 regions) unless a live table is supplied (tools/refresh-azure-catalog writes one).
 * - A region missing from the table falls back to the `eastus` table.
 * - Spot: the static table has no spot prices, and upstream then starts spot equal to on-demand
 *   until a live retail-API refresh succeeds. We do the same: without a spot table, the spot
 *   price of a size is its on-demand price.
 * - A missing price is reported as undefined; offerings turn it into {@link MISSING_PRICE}.
 */
import { loadPricing, loadVMSizes } from './data-files.js';

/** Price upstream assigns when a size has no price, or is not a known AKS size (USD/hour). */
export const MISSING_PRICE = 999;

/** Region whose table is used for regions missing from the price data. */
export const FALLBACK_PRICING_REGION = 'eastus';

/** region -> size name -> USD/hour. */
export type PriceTable = Readonly<Record<string, Readonly<Record<string, number>>>>;

/** Price lookup over an on-demand table and an optional spot table. */
export class AzurePricing {
  readonly #onDemand: PriceTable;
  readonly #spot: PriceTable | undefined;

  /**
   * @param onDemand region -> size -> on-demand USD/hour.
   * @param spot region -> size -> spot USD/hour; when omitted spot equals on-demand (upstream's start-up behaviour).
   */
  constructor(onDemand: PriceTable, spot?: PriceTable) {
    this.#onDemand = onDemand;
    this.#spot = spot;
  }

  /** Pricing from the shipped data/pricing.json, with the odd retail keys mapped to size names. */
  static fromStaticData(): AzurePricing {
    const file = loadPricing();
    staticPricing ??= new AzurePricing(withAliases(file.onDemand), file.spot ?? undefined);
    return staticPricing;
  }

  /** Regions the on-demand table covers. */
  regions(): string[] {
    return Object.keys(this.#onDemand).sort();
  }

  /** The region whose table answers for `region` (itself, or `eastus` when missing). */
  pricingRegion(region: string): string {
    return region in this.#onDemand ? region : FALLBACK_PRICING_REGION;
  }

  /** On-demand USD/hour of `size` in `region`, undefined when unpriced. */
  onDemandPrice(region: string, size: string): number | undefined {
    return this.#onDemand[this.pricingRegion(region)]?.[size];
  }

  /** Spot USD/hour of `size` in `region`; the on-demand price when no spot table is loaded. */
  spotPrice(region: string, size: string): number | undefined {
    if (this.#spot === undefined) return this.onDemandPrice(region, size);
    const table = this.#spot[region] ?? this.#spot[FALLBACK_PRICING_REGION];
    return table?.[size];
  }

  /** Whether the on-demand table prices `size` in `region` (after the eastus fallback). */
  has(region: string, size: string): boolean {
    return this.onDemandPrice(region, size) !== undefined;
  }
}

let staticPricing: AzurePricing | undefined;

/**
 * The shipped on-demand table as data/pricing.json holds it: region -> retail `armSkuName` ->
 * USD/hour (57 regions, Linux consumption prices, keys exactly as the Retail Prices API spells
 * them, misspellings included). The ARM emulator serves it as its retail prices.
 */
export function staticOnDemandPriceTable(): PriceTable {
  return loadPricing().onDemand;
}

/** Adds entries for sizes the retail API lists under a misspelt key (vm-sizes.json `pricingKeys`). */
function withAliases(table: PriceTable): PriceTable {
  const aliases = loadVMSizes().flatMap((s) =>
    (s.pricingKeys ?? []).map((k) => [k.trim(), s.name] as const),
  );
  const out: Record<string, Record<string, number>> = {};
  for (const [region, prices] of Object.entries(table)) {
    const copy = { ...prices };
    for (const [key, name] of aliases) {
      const price = prices[key];
      if (price !== undefined && copy[name] === undefined) copy[name] = price;
    }
    out[region] = copy;
  }
  return out;
}
