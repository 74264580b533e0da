/**
 * On-demand prices from the AWS Price List Query API (`pricing:GetProducts`), queried as
 * upstream's pricing provider does.
 */
import { paginateGetProducts, type Filter, type PricingClient } from '@aws-sdk/client-pricing';

/**
 * The Pricing API endpoint region that serves `region`: ap-south-1 for ap-*, cn-northwest-1 for
 * cn-*, eu-central-1 for eu-*, else us-east-1.
 */
export function pricingEndpointRegion(region: string): string {
  if (region.startsWith('ap-')) return 'ap-south-1';
  if (region.startsWith('cn-')) return 'cn-northwest-1';
  if (region.startsWith('eu-')) return 'eu-central-1';
  return 'us-east-1';
}

/** Currency prices are read in: CNY in cn-* regions, else USD. */
export function pricingCurrency(region: string): string {
  return region.startsWith('cn-') ? 'CNY' : 'USD';
}

/**
 * On-demand Linux prices per instance-hour for `region`: two GetProducts queries (service
 * AmazonEC2, 100 per page) filtered on regionCode, operatingSystem Linux, preInstalledSw NA,
 * capacitystatus Used, marketoption OnDemand, and either tenancy Shared with productFamily
 * "Compute Instance" or tenancy Dedicated with "Compute Instance (bare metal)". Zero or
 * unparsable prices are skipped; the first price seen for a type wins. SDK errors propagate.
 */
export async function getOnDemandPrices(
  client: PricingClient,
  region: string,
): Promise<Record<string, number>> {
  const currency = pricingCurrency(region);
  const prices: Record<string, number> = {};
  const common = [
    ['regionCode', region],
    ['operatingSystem', 'Linux'],
    ['preInstalledSw', 'NA'],
    ['capacitystatus', 'Used'],
    ['marketoption', 'OnDemand'],
  ];
  for (const extra of [
    [
      ['tenancy', 'Shared'],
      ['productFamily', 'Compute Instance'],
    ],
    [
      ['tenancy', 'Dedicated'],
      ['productFamily', 'Compute Instance (bare metal)'],
    ],
  ]) {
    const Filters: Filter[] = [...common, ...extra].map(([Field, Value]) => ({
      Type: 'TERM_MATCH',
      Field,
      Value,
    }));
    const pages = paginateGetProducts(
      { client, pageSize: 100 },
      { ServiceCode: 'AmazonEC2', Filters },
    );
    for await (const page of pages) {
      for (const item of (page.PriceList ?? []) as unknown[]) {
        const parsed = priceOf(item, currency);
        if (parsed !== undefined && prices[parsed.instanceType] === undefined) {
          prices[parsed.instanceType] = parsed.price;
        }
      }
    }
  }
  return prices;
}

interface PriceListProduct {
  product?: { attributes?: { instanceType?: string } };
  terms?: {
    OnDemand?: Record<
      string,
      { priceDimensions?: Record<string, { pricePerUnit?: Record<string, string> }> }
    >;
  };
}

/** The instance type and hourly price of one Price List item (a JSON string or object); undefined when it has neither. */
export function priceOf(
  item: unknown,
  currency: string,
): { instanceType: string; price: number } | undefined {
  let product: PriceListProduct;
  try {
    // The SDK hands items over as String objects (its lazy JSON strings); plain strings and
    // already-parsed objects are accepted too.
    product = (
      typeof item === 'string' || item instanceof String ? JSON.parse(String(item)) : item
    ) as PriceListProduct;
  } catch {
    return undefined;
  }
  const instanceType = product?.product?.attributes?.instanceType;
  if (instanceType === undefined) return undefined;
  for (const term of Object.values(product.terms?.OnDemand ?? {})) {
    for (const dimension of Object.values(term.priceDimensions ?? {})) {
      const price = Number(dimension.pricePerUnit?.[currency]);
      if (Number.isFinite(price) && price > 0) return { instanceType, price };
    }
  }
  return undefined;
}
