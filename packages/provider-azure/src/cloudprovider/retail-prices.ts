/**
 * Live prices from the Azure Retail Prices API (as upstream `Azure/karpenter-provider-azure`'s
 * pricing provider): Compute / Virtual Machines consumption prices in USD for one region, following
 * `NextPageLink`. Windows products and "Low Priority" meters are dropped; a `skuName` ending in
 * ` Spot` is a spot price, any other an on-demand price; keyed by `armSkuName`. The result replaces
 * that region's tables in an {@link AzurePricing}; other regions keep the static prices, and a
 * failed refresh keeps what was there (the caller keeps the old pricing).
 *
 * HTTP goes through @azure/core-rest-pipeline (retries 429 with Retry-After and transient errors).
 */
import {
  createDefaultHttpClient,
  createPipelineFromOptions,
  createPipelineRequest,
  type HttpClient,
} from '@azure/core-rest-pipeline';
import { AzurePricing, type PriceTable } from '../catalog/pricing.js';

/** The public Retail Prices endpoint. */
export const RETAIL_PRICES_ENDPOINT = 'https://prices.azure.com';

/** Options of {@link fetchRetailPrices}. */
export interface RetailPricesOptions {
  readonly region: string;
  /** Default the public endpoint; tests use the ARM emulator. */
  readonly endpoint?: string;
  /** Trusted CA (PEM) for a private endpoint. */
  readonly tlsCA?: string;
  readonly httpClient?: HttpClient;
  /** Safety stop on pages followed; default 200. */
  readonly maxPages?: number;
}

/** Size -> USD/hour for one region. */
export interface RegionPrices {
  readonly onDemand: Record<string, number>;
  readonly spot: Record<string, number>;
}

interface Item {
  armSkuName?: string;
  skuName?: string;
  productName?: string;
  retailPrice?: number;
  type?: string;
}

/** Fetches one region's VM prices. Throws Error with the HTTP status on a failed page. */
export async function fetchRetailPrices(options: RetailPricesOptions): Promise<RegionPrices> {
  const pipeline = createPipelineFromOptions({
    retryOptions: { maxRetries: 3 },
    ...(options.tlsCA ? { tlsOptions: { ca: options.tlsCA } } : {}),
  });
  const client = options.httpClient ?? createDefaultHttpClient();
  const filter = `serviceFamily eq 'Compute' and serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and currencyCode eq 'USD' and armRegionName eq '${options.region}'`;
  let url: string | null =
    `${options.endpoint ?? RETAIL_PRICES_ENDPOINT}/api/retail/prices?api-version=2023-01-01-preview&$filter=${encodeURIComponent(filter)}`;
  const onDemand: Record<string, number> = {};
  const spot: Record<string, number> = {};
  for (let pages = 0; url && pages < (options.maxPages ?? 200); pages++) {
    const res = await pipeline.sendRequest(client, createPipelineRequest({ url, method: 'GET' }));
    if (res.status !== 200)
      throw new Error(`retail prices: GET page ${pages + 1} answered HTTP ${res.status}`);
    const body = JSON.parse(res.bodyAsText ?? '{}') as {
      Items?: Item[];
      NextPageLink?: string | null;
    };
    for (const item of body.Items ?? []) {
      if (!item.armSkuName || typeof item.retailPrice !== 'number' || item.type !== 'Consumption')
        continue;
      if (item.productName?.includes('Windows') || item.skuName?.includes('Low Priority')) continue;
      if (item.skuName?.endsWith(' Spot')) spot[item.armSkuName] = item.retailPrice;
      else onDemand[item.armSkuName] = item.retailPrice;
    }
    url = body.NextPageLink ?? null;
  }
  return { onDemand, spot };
}

/**
 * Pricing with `region` answered from live prices (`live`) and every other region from `base`'s
 * on-demand table. Spot for the region comes from the live spot meters; a size without a spot
 * meter falls back to its on-demand price, like the static start-up behaviour.
 */
export function pricingWithLiveRegion(
  base: AzurePricing,
  region: string,
  live: RegionPrices,
): AzurePricing {
  const regionOnDemand = { ...live.onDemand };
  const regionSpot: Record<string, number> = {};
  for (const [size, price] of Object.entries(regionOnDemand))
    regionSpot[size] = live.spot[size] ?? price;
  return new RegionOverridePricing(base, region, regionOnDemand, regionSpot);
}

/** AzurePricing that answers one region from its own tables and the rest from a base. */
class RegionOverridePricing extends AzurePricing {
  readonly #base: AzurePricing;
  readonly #region: string;
  readonly #onDemand: Record<string, number>;
  readonly #spot: Record<string, number>;
  constructor(
    base: AzurePricing,
    region: string,
    onDemand: Record<string, number>,
    spot: Record<string, number>,
  ) {
    super({} as PriceTable);
    this.#base = base;
    this.#region = region;
    this.#onDemand = onDemand;
    this.#spot = spot;
  }
  override regions(): string[] {
    return [...new Set([...this.#base.regions(), this.#region])].sort();
  }
  override pricingRegion(region: string): string {
    return region === this.#region ? region : this.#base.pricingRegion(region);
  }
  override onDemandPrice(region: string, size: string): number | undefined {
    return region === this.#region ? this.#onDemand[size] : this.#base.onDemandPrice(region, size);
  }
  override spotPrice(region: string, size: string): number | undefined {
    return region === this.#region ? this.#spot[size] : this.#base.spotPrice(region, size);
  }
  override has(region: string, size: string): boolean {
    return this.onDemandPrice(region, size) !== undefined;
  }
}
