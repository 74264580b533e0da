/**
 * Static EC2 prices for the simulated catalog: on-demand from
 * the region's seed table, or the us-east-1 table for regions without one (as upstream);
 * spot modelled as upstream's fake provider does, 0.7 × on-demand in every zone, because no
 * recorded spot prices exist (data/README.md). Real Karpenter seeds spot with the on-demand
 * price until DescribeSpotPriceHistory answers; pass `spotPriceFactor: 1` for that rule.
 */
import { FallbackPricingRegion, type AwsCatalog } from './catalog-data.js';

/**
 * Live spot prices, USD/hour, keyed {@link spotPriceKey} (from DescribeSpotPriceHistory). Once
 * given, a (type, zone) missing from it has no spot price, so its spot offering is unavailable,
 * as upstream after its first successful spot price update.
 */
export type SpotPriceTable = ReadonlyMap<string, number>;

/** `<instanceType>/<zone>`. */
export function spotPriceKey(instanceType: string, zone: string): string {
  return `${instanceType}/${zone}`;
}

/** Spot price as a fraction of on-demand in upstream's fake provider. */
export const DefaultSpotPriceFactor = 0.7;

/** Price tables for one region, resolved with the fallback rule. */
export interface RegionPricing {
  /** The region whose table is used (the requested one, or us-east-1). */
  readonly sourceRegion: string;
  /** `USD` (or `CNY` for the cn-north-1 table). */
  readonly currency: string;
  /** On-demand price per instance-hour, or undefined when the table has none. */
  onDemand(instanceType: string): number | undefined;
  /** Spot price per instance-hour in `zone` (same in every zone here), or undefined. */
  spot(instanceType: string, zone: string): number | undefined;
}

/**
 * Pricing for `region` from the catalog's static tables. Throws Error when neither the region
 * nor the fallback region has a table.
 */
export function regionPricing(
  catalog: AwsCatalog,
  region: string,
  options: { spotPriceFactor?: number; spotPrices?: SpotPriceTable } = {},
): RegionPricing {
  const sourceRegion = catalog.pricing[region] !== undefined ? region : FallbackPricingRegion;
  const table = catalog.pricing[sourceRegion];
  if (table === undefined) {
    throw new Error(
      `no on-demand price table for ${region} or the fallback ${FallbackPricingRegion}`,
    );
  }
  const factor = options.spotPriceFactor ?? DefaultSpotPriceFactor;
  if (!(factor > 0)) throw new RangeError(`spotPriceFactor must be > 0, got ${factor}`);
  const onDemand = (instanceType: string): number | undefined => {
    const price = table.prices[instanceType];
    return price !== undefined && price > 0 ? price : undefined;
  };
  return {
    sourceRegion,
    currency: table.currency,
    onDemand,
    spot: (instanceType, zone) => {
      if (options.spotPrices) return options.spotPrices.get(spotPriceKey(instanceType, zone));
      const price = onDemand(instanceType);
      return price === undefined ? undefined : price * factor;
    },
  };
}
