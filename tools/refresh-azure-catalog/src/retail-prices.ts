/**
 * VM prices from the Azure Retail Prices API (https://prices.azure.com/api/retail/prices), the
 * way upstream's pricing provider reads them: consumption
 * prices in USD of the Compute / Virtual Machines service for one region at a time, following
 * `NextPageLink` until it is null; Windows products and "Low Priority" meters are dropped; a
 * `skuName` ending in " Spot" goes to the spot table, everything else to on-demand; keyed by
 * `armSkuName`. No credentials are needed (public API).
 */

/** Public endpoint of the Retail Prices API. */
export const RETAIL_PRICES_ENDPOINT = 'https://prices.azure.com/api/retail/prices';
/** API version upstream uses (it adds `armSkuName` and the savings-plan fields). */
export const RETAIL_PRICES_API_VERSION = '2023-01-01-preview';

/** One price item, as the API returns it (fields we read). */
export interface RetailPriceItem {
  readonly currencyCode: string;
  readonly retailPrice: number;
  readonly unitPrice: number;
  readonly armRegionName: string;
  readonly armSkuName: string;
  readonly skuName: string;
  readonly productName: string;
  readonly meterName: string;
  readonly serviceName: string;
  readonly serviceFamily: string;
  readonly unitOfMeasure: string;
  readonly type: string;
}

/** One page of the API. */
export interface RetailPricesPage {
  readonly Items: readonly RetailPriceItem[];
  readonly NextPageLink: string | null;
  readonly Count: number;
}

/** region -> ARM size name -> USD/hour. */
export type PriceTable = Record<string, Record<string, number>>;

/** On-demand and spot prices of the regions fetched. */
export interface RetailPrices {
  readonly onDemand: PriceTable;
  readonly spot: PriceTable;
}

/** `fetch`-compatible function (injectable for tests). */
export type FetchLike = (
  url: string,
) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

/** The OData filter for one region's Linux/Windows VM consumption prices in USD. */
export function retailPricesFilter(region: string): string {
  return [
    `serviceFamily eq 'Compute'`,
    `serviceName eq 'Virtual Machines'`,
    `priceType eq 'Consumption'`,
    `currencyCode eq 'USD'`,
    `armRegionName eq '${region}'`,
  ].join(' and ');
}

/** First page URL for a region. */
export function retailPricesUrl(region: string, endpoint = RETAIL_PRICES_ENDPOINT): string {
  const url = new URL(endpoint);
  url.searchParams.set('api-version', RETAIL_PRICES_API_VERSION);
  url.searchParams.set('$filter', retailPricesFilter(region));
  return url.toString();
}

/** Which table an item belongs in, or undefined when it is not a Linux VM price upstream uses. */
export function classifyPriceItem(item: RetailPriceItem): 'onDemand' | 'spot' | undefined {
  if (!item.armSkuName || item.productName.includes('Windows')) return undefined;
  if (item.skuName.includes('Low Priority') || item.meterName.includes('Low Priority'))
    return undefined;
  return item.skuName.endsWith(' Spot') ? 'spot' : 'onDemand';
}

/**
 * Fetches and classifies every page for each region.
 * @throws Error naming the region and HTTP status when a page request fails.
 */
export async function fetchRetailPrices(
  regions: readonly string[],
  options: { fetch?: FetchLike; endpoint?: string } = {},
): Promise<RetailPrices> {
  const doFetch: FetchLike = options.fetch ?? ((url) => fetch(url));
  const onDemand: PriceTable = {};
  const spot: PriceTable = {};
  for (const region of regions) {
    let url: string | null = retailPricesUrl(region, options.endpoint);
    while (url) {
      const res = await doFetch(url);
      if (!res.ok) throw new Error(`retail prices for ${region}: HTTP ${res.status} from ${url}`);
      const page = (await res.json()) as RetailPricesPage;
      for (const item of page.Items) {
        const table = classifyPriceItem(item);
        if (!table) continue;
        const target = table === 'spot' ? spot : onDemand;
        const prices = (target[item.armRegionName] ??= {});
        // Several meters can share a size (e.g. promo); keep the first, as a map overwrite-once would.
        prices[item.armSkuName] ??= item.retailPrice;
      }
      url = page.NextPageLink;
    }
  }
  return { onDemand, spot };
}
