/**
 * Offerings of a VM size in a region (as upstream `Azure/karpenter-provider-azure`): one per
 * zone the size is offered in, plus the regional zone `0`, times {on-demand, spot}.
 *
 * - Zones: see `catalog/zones.ts` for the rule.
 * - Price: on-demand / spot from the pricing table; 999 when missing, and 999 for both when the
 *   size is not in upstream's known SKU list (upstream's rule).
 * - Availability: spot only on spot-capable sizes; the unavailable-offerings hook can mark any
 *   offering unavailable. Unavailable offerings are kept (`available: false`), as the contract asks.
 */
import { createOffering, type Offering } from '@karpenter-ts/cloudprovider';
import { AzureLabels } from '../labels.js';
import { MISSING_PRICE, type AzurePricing } from '../catalog/pricing.js';
import type { AzureSku } from '../catalog/sku.js';
import { REGIONAL_ZONE, defaultZones, zoneLabel } from '../catalog/zones.js';
import type { AzureCapacityType } from './options.js';

/** Zone label values a size is offered in within `region`, zonal first, then `0` (regional). */
export function offeringZones(sku: AzureSku, region: string): string[] {
  const armZones = sku.armZones?.[region];
  const zones = armZones ?? defaultZones(region);
  return [...[...zones].sort().map((z) => zoneLabel(region, z)), REGIONAL_ZONE];
}

/** Inputs of {@link buildOfferings}. */
export interface OfferingInputs {
  readonly region: string;
  readonly pricing: AzurePricing;
  readonly isUnavailable?: (sku: string, zone: string, capacityType: AzureCapacityType) => boolean;
}

/** All offerings of `sku` in the region (USD/hour prices), available or not. */
export function buildOfferings(sku: AzureSku, inputs: OfferingInputs): Offering[] {
  const { region, pricing, isUnavailable } = inputs;
  const onDemand = sku.knownSKU
    ? (pricing.onDemandPrice(region, sku.name) ?? MISSING_PRICE)
    : MISSING_PRICE;
  const spot = sku.knownSKU
    ? (pricing.spotPrice(region, sku.name) ?? MISSING_PRICE)
    : MISSING_PRICE;
  const offerings: Offering[] = [];
  for (const zone of offeringZones(sku, region)) {
    const scope = zone === REGIONAL_ZONE ? 'regional' : 'zonal';
    for (const capacityType of ['on-demand', 'spot'] as const) {
      const capable = capacityType === 'on-demand' || sku.lowPriorityCapable;
      offerings.push(
        createOffering({
          zone,
          capacityType,
          price: capacityType === 'on-demand' ? onDemand : spot,
          available: capable && !(isUnavailable?.(sku.name, zone, capacityType) ?? false),
          labels: { [AzureLabels.PlacementScope]: scope },
        }),
      );
    }
  }
  return offerings;
}
