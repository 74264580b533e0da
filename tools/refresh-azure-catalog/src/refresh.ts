/**
 * One refresh run: prices and/or SKUs for a list of regions, written into the data folder.
 */
import { readKnownSkus, readPricedRegions, writeArmSkus, writePricing } from './catalog-files.js';
import { listArmSkus, type ResourceSkuLister } from '@karpenter-ts/provider-azure';
import { fetchRetailPrices, type FetchLike } from './retail-prices.js';

/** Inputs of {@link refreshCatalog}. */
export interface RefreshOptions {
  /** Data folder to update (packages/provider-azure/data). */
  readonly outDir: string;
  /** ARM regions; default: every region already in pricing.json. */
  readonly regions?: readonly string[];
  readonly prices: boolean;
  readonly skus: boolean;
  /** Builds the compute client (only called when `skus`). */
  readonly computeClient?: () => ResourceSkuLister;
  readonly fetch?: FetchLike;
  readonly pricesEndpoint?: string;
  readonly now?: Date;
}

/** What a run changed. */
export interface RefreshSummary {
  readonly regions: readonly string[];
  readonly onDemandPrices: number;
  readonly spotPrices: number;
  readonly skuRecords: number;
}

/**
 * Runs the refresh. @throws Error when no region is given and none can be read from pricing.json,
 * when `skus` is set without a compute client, or when an API call fails (nothing is written for
 * the failing part).
 */
export async function refreshCatalog(options: RefreshOptions): Promise<RefreshSummary> {
  const regions = options.regions?.length
    ? [...options.regions]
    : readPricedRegions(options.outDir);
  if (regions.length === 0) throw new Error('regions: none given and none found in pricing.json');
  const now = options.now ?? new Date();
  let onDemandPrices = 0;
  let spotPrices = 0;
  let skuRecords = 0;
  if (options.prices) {
    const prices = await fetchRetailPrices(regions, {
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.pricesEndpoint ? { endpoint: options.pricesEndpoint } : {}),
    });
    onDemandPrices = Object.values(prices.onDemand).reduce((n, t) => n + Object.keys(t).length, 0);
    spotPrices = Object.values(prices.spot).reduce((n, t) => n + Object.keys(t).length, 0);
    writePricing(options.outDir, prices, now);
  }
  if (options.skus) {
    if (!options.computeClient)
      throw new Error('skus: a compute client (subscription and credentials) is required');
    const records = await listArmSkus(
      options.computeClient(),
      regions,
      readKnownSkus(options.outDir),
    );
    skuRecords = writeArmSkus(options.outDir, records, now);
  }
  return { regions, onDemandPrices, spotPrices, skuRecords };
}
