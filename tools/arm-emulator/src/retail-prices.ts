/**
 * The Azure Retail Prices API (`GET /api/retail/prices?api-version=...&$filter=...`): items in the
 * API's shape (`armSkuName`, `skuName`, `productName`, `retailPrice`, `type`, ...), paged through
 * `NextPageLink` (absolute URL, `$skip`). Per size and region the emulator lists a Linux
 * consumption meter, a Spot meter (`<size> Spot`), a Low Priority meter and a Windows product, so
 * clients exercise the filtering a real response needs.
 *
 * Default on-demand prices are the provider's shipped static table (every priced size, 57
 * regions, `staticOnDemandPriceTable`). Spot and Low Priority prices are the emulator's own synthetic figures
 * (`spotFraction` of on-demand, default 0.2), since the shipped data has none; Windows = 1.5x.
 */
import { staticOnDemandPriceTable } from '@karpenter-ts/provider-azure';
import { ArmError } from './arm-error.js';
import type { ArmResponse, EmulatorContext } from './context.js';

/** region -> size -> USD/hour. */
export type PriceTable = Readonly<Record<string, Readonly<Record<string, number>>>>;

/** One item of the Retail Prices API. */
export interface RetailPriceItem {
  currencyCode: 'USD';
  tierMinimumUnits: number;
  retailPrice: number;
  unitPrice: number;
  armRegionName: string;
  location: string;
  effectiveStartDate: string;
  meterId: string;
  meterName: string;
  productId: string;
  skuId: string;
  productName: string;
  skuName: string;
  serviceName: 'Virtual Machines';
  serviceId: string;
  serviceFamily: 'Compute';
  unitOfMeasure: '1 Hour';
  type: 'Consumption';
  isPrimaryMeterRegion: boolean;
  armSkuName: string;
}

/** The prices the emulator serves. */
export interface RetailPrices {
  readonly onDemand: PriceTable;
  /** Explicit spot prices; sizes missing here get `spotFraction` × on-demand. */
  readonly spot: PriceTable;
  /** Default 0.2. */
  readonly spotFraction: number;
}

/** On-demand prices of every size the provider's shipped table prices (57 regions). */
export function defaultOnDemandPrices(): PriceTable {
  return staticOnDemandPriceTable();
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

/** All items for a region (every size priced there), in a stable order. */
export function retailItems(prices: RetailPrices, region: string): RetailPriceItem[] {
  const table = prices.onDemand[region] ?? {};
  const items: RetailPriceItem[] = [];
  for (const [armSkuName, price] of Object.entries(table).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const meter = armSkuName.replace(/^Standard_/, '').replaceAll('_', ' ');
    const spot = prices.spot[region]?.[armSkuName] ?? round(price * prices.spotFraction);
    const series = `Virtual Machines ${meter.split(' ').slice(1).join(' ') || meter} Series`;
    const base = {
      currencyCode: 'USD' as const,
      tierMinimumUnits: 0,
      armRegionName: region,
      location: region,
      effectiveStartDate: '2025-01-01T00:00:00Z',
      serviceName: 'Virtual Machines' as const,
      serviceId: 'DZH313Z7MMC8',
      serviceFamily: 'Compute' as const,
      unitOfMeasure: '1 Hour' as const,
      type: 'Consumption' as const,
      isPrimaryMeterRegion: true,
      armSkuName,
    };
    const item = (skuName: string, productName: string, p: number, n: number): RetailPriceItem => ({
      ...base,
      retailPrice: p,
      unitPrice: p,
      meterId: `${region}-${armSkuName}-${n}`,
      meterName: skuName,
      productId: `DZH318Z0${armSkuName.length}${n}`,
      skuId: `DZH318Z0${armSkuName.length}/${n}`,
      productName,
      skuName,
    });
    items.push(item(meter, series, price, 1));
    items.push(item(`${meter} Spot`, series, spot, 2));
    items.push(item(`${meter} Low Priority`, series, spot, 3));
    items.push(item(meter, `${series} Windows`, round(price * 1.5), 4));
  }
  return items;
}

/** Items per prices object and region, built once: a client pages through the same list. */
const itemCache = new WeakMap<RetailPrices, Map<string, RetailPriceItem[]>>();

function regionItems(prices: RetailPrices, region: string): RetailPriceItem[] {
  let byRegion = itemCache.get(prices);
  if (!byRegion) itemCache.set(prices, (byRegion = new Map()));
  let items = byRegion.get(region);
  if (!items) byRegion.set(region, (items = retailItems(prices, region)));
  return items;
}

/**
 * Answers a Retail Prices query. Understands `armRegionName eq '<region>'` in `$filter` (other
 * clauses are accepted and, for the emulator's Compute-only data, need no filtering). Pages of
 * `pageSize` items, `$skip` for the next page.
 */
export function queryRetailPrices(
  ctx: EmulatorContext,
  prices: RetailPrices,
  url: URL,
): ArmResponse {
  const filter = url.searchParams.get('$filter') ?? '';
  const region = /armRegionName\s+eq\s+'([^']+)'/i.exec(filter)?.[1]?.toLowerCase();
  if (!region)
    throw new ArmError(
      400,
      'BadRequest',
      "The emulator needs $filter with armRegionName eq '<region>'.",
    );
  const all = regionItems(prices, region);
  const skip = Number(url.searchParams.get('$skip') ?? '0') || 0;
  const Items = all.slice(skip, skip + ctx.pageSize);
  let NextPageLink: string | null = null;
  if (skip + ctx.pageSize < all.length) {
    const next = new URL(url.toString());
    next.searchParams.set('$skip', String(skip + ctx.pageSize));
    NextPageLink = `${ctx.baseUrl()}${next.pathname}${next.search}`;
  }
  return {
    status: 200,
    body: {
      BillingCurrency: 'USD',
      CustomerEntityId: 'Default',
      CustomerEntityType: 'Retail',
      Items,
      NextPageLink,
      Count: Items.length,
    },
  };
}
