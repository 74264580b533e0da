/**
 * Spot prices the emulator answers DescribeSpotPriceHistory from (moto 5.2.5 answers every type
 * and zone with 0.00001 dated 2006-01-02, which would read as real prices).
 */
import { QueryParams, ec2Response, xmlElement } from './query-protocol.js';

/** One spot price: USD/hour for an instance type in a zone. */
export interface SpotPrice {
  readonly instanceType: string;
  readonly zone: string;
  /** USD/hour. */
  readonly price: number;
}

/** The emulator's spot price table (empty at start: no spot price known). */
export class SpotPrices {
  readonly #prices = new Map<string, SpotPrice>();

  /** Sets (or replaces) prices. */
  set(prices: readonly SpotPrice[]): void {
    for (const p of prices) this.#prices.set(`${p.instanceType}/${p.zone}`, p);
  }

  /** Removes every price. */
  clear(): void {
    this.#prices.clear();
  }

  /** USD/hour, or undefined when none is set. */
  price(instanceType: string, zone: string): number | undefined {
    return this.#prices.get(`${instanceType}/${zone}`)?.price;
  }

  /**
   * Answers DescribeSpotPriceHistory: the latest price of each (type, zone), filtered by
   * `InstanceType.N`, `AvailabilityZone` and the `availability-zone`/`instance-type` filters, for
   * product description `Linux/UNIX (Amazon VPC)` when `ProductDescription.N` asks for it or for
   * `Linux/UNIX`; one page (no `nextToken`), timestamps now.
   */
  describe(p: QueryParams, now: Date): string {
    const types = new Set(p.values('InstanceType'));
    const zone = p.get('AvailabilityZone');
    const filters = new Map(p.list('Filter').map((f) => [f.get('Name') ?? '', f.values('Value')]));
    for (const v of filters.get('instance-type') ?? []) types.add(v);
    const zones = new Set(filters.get('availability-zone') ?? []);
    if (zone) zones.add(zone);
    const asked = p.values('ProductDescription');
    const products =
      asked.length === 0 ? ['Linux/UNIX'] : asked.filter((d) => d.startsWith('Linux/UNIX'));
    const product = products.includes('Linux/UNIX (Amazon VPC)')
      ? 'Linux/UNIX (Amazon VPC)'
      : products[0];
    const items = product
      ? [...this.#prices.values()]
          .filter(
            (s) =>
              (types.size === 0 || types.has(s.instanceType)) &&
              (zones.size === 0 || zones.has(s.zone)),
          )
          .map(
            (s) =>
              `<item>${xmlElement('availabilityZone', s.zone)}${xmlElement('instanceType', s.instanceType)}${xmlElement('productDescription', product)}${xmlElement('spotPrice', s.price.toFixed(6))}${xmlElement('timestamp', now.toISOString())}</item>`,
          )
      : [];
    return ec2Response(
      'DescribeSpotPriceHistory',
      `<spotPriceHistorySet>${items.join('')}</spotPriceHistorySet><nextToken></nextToken>`,
    );
  }
}
