/**
 * Refreshes the recorded EC2 catalog from live AWS APIs and merges the result into the existing
 * files: refreshed records and regions replace their old versions, everything else is kept.
 * All reads happen before any write, so a failed refresh writes nothing.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import type { InstanceTypeRecord } from '@karpenter-ts/provider-aws';
import {
  InstanceTypesFile,
  OfferingsFile,
  PricingFile,
  formatInstanceTypes,
  formatOfferings,
  formatPricing,
  readCatalogFile,
  writeCatalogFile,
  type InstanceTypesDocument,
  type OfferingsDocument,
  type PricingDocument,
} from './catalog-files.js';
import { describeInstanceTypes, describeZoneOfferings } from './ec2-api.js';
import { toInstanceTypeRecord } from './instance-type-record.js';
import { getOnDemandPrices, pricingCurrency, pricingEndpointRegion } from './pricing-api.js';

/** What to refresh and with which clients. */
export interface RefreshOptions {
  /** The data folder holding the three files. */
  readonly outDir: string;
  /** EC2 regions to query, e.g. `['us-east-1']`. */
  readonly regions: readonly string[];
  /** DescribeInstanceTypes → instance-types.json. */
  readonly instanceTypes: boolean;
  /** DescribeInstanceTypeOfferings → instance-type-offerings.json. */
  readonly offerings: boolean;
  /** GetProducts → pricing-on-demand.json. */
  readonly prices: boolean;
  /** An EC2 client for a region. */
  readonly ec2Client: (region: string) => EC2Client;
  /** A Pricing client for an endpoint region (us-east-1, ap-south-1, eu-central-1, cn-northwest-1). */
  readonly pricingClient: (endpointRegion: string) => PricingClient;
  /** Timestamp source for `generatedAt`; default now. */
  readonly now?: () => Date;
}

/** Counts of what was refreshed. */
export interface RefreshSummary {
  readonly regions: readonly string[];
  /** Instance type records written (refreshed + kept). */
  readonly instanceTypes: number;
  /** Records that came from this refresh. */
  readonly refreshedInstanceTypes: number;
  /** (instance type, region) pairs with zone offerings refreshed. */
  readonly offerings: number;
  /** On-demand prices refreshed, over all regions. */
  readonly prices: number;
}

/**
 * Runs the refresh. Throws (writing nothing) when an API call fails or a region returns no data,
 * naming the region and the API.
 */
export async function refreshAwsCatalog(options: RefreshOptions): Promise<RefreshSummary> {
  if (options.regions.length === 0) throw new Error('no regions to refresh');
  const now = (options.now ?? (() => new Date()))().toISOString();
  const writes: [string, string][] = [];
  let refreshedInstanceTypes = 0;
  let instanceTypeCount = 0;
  let offeringCount = 0;
  let priceCount = 0;

  if (options.instanceTypes) {
    const doc = await readCatalogFile<InstanceTypesDocument>(options.outDir, InstanceTypesFile, {
      meta: {},
      types: [],
    });
    const byName = new Map<string, InstanceTypeRecord>(doc.types.map((t) => [t.name, t]));
    const refreshed = new Map<string, InstanceTypeRecord>();
    for (const region of options.regions) {
      const infos = await call(region, 'DescribeInstanceTypes', () =>
        describeInstanceTypes(options.ec2Client(region)),
      );
      if (infos.length === 0)
        throw new Error(`${region}: DescribeInstanceTypes returned no instance types`);
      for (const info of infos) {
        if (info.InstanceType === undefined || refreshed.has(info.InstanceType)) continue;
        const record = toInstanceTypeRecord(info, byName.get(info.InstanceType));
        if (record !== undefined) refreshed.set(record.name, record);
      }
    }
    for (const [name, record] of refreshed) byName.set(name, record);
    const types = [...byName.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    refreshedInstanceTypes = refreshed.size;
    instanceTypeCount = types.length;
    writes.push([
      InstanceTypesFile,
      formatInstanceTypes({
        meta: {
          ...doc.meta,
          count: types.length,
          refreshed: { at: now, regions: options.regions, api: 'ec2:DescribeInstanceTypes' },
        },
        types,
      }),
    ]);
  }

  if (options.offerings) {
    const doc = await readCatalogFile<OfferingsDocument>(options.outDir, OfferingsFile, {
      meta: {},
      regions: {},
    });
    const regions = { ...doc.regions };
    for (const region of options.regions) {
      const offerings = await call(region, 'DescribeInstanceTypeOfferings', () =>
        describeZoneOfferings(options.ec2Client(region)),
      );
      if (offerings.zones.length === 0)
        throw new Error(`${region}: DescribeInstanceTypeOfferings returned no zones`);
      regions[region] = offerings;
      offeringCount += Object.keys(offerings.types).length;
    }
    writes.push([
      OfferingsFile,
      formatOfferings({
        meta: {
          ...doc.meta,
          refreshed: {
            at: now,
            regions: options.regions,
            api: 'ec2:DescribeInstanceTypeOfferings',
          },
        },
        regions,
      }),
    ]);
  }

  if (options.prices) {
    const doc = await readCatalogFile<PricingDocument>(options.outDir, PricingFile, {
      meta: { fallbackRegion: 'us-east-1' },
      regions: {},
    });
    const regions = { ...doc.regions };
    for (const region of options.regions) {
      const endpoint = pricingEndpointRegion(region);
      const prices = await call(region, 'pricing:GetProducts', () =>
        getOnDemandPrices(options.pricingClient(endpoint), region),
      );
      const count = Object.keys(prices).length;
      if (count === 0) throw new Error(`${region}: pricing:GetProducts returned no prices`);
      const sorted: Record<string, number> = {};
      for (const name of Object.keys(prices).sort()) sorted[name] = prices[name] as number;
      regions[region] = {
        currency: pricingCurrency(region),
        generatedAt: now,
        sourceFile: `pricing:GetProducts via ${endpoint}`,
        count,
        prices: sorted,
      };
      priceCount += count;
    }
    writes.push([PricingFile, formatPricing({ meta: doc.meta, regions })]);
  }

  for (const [file, text] of writes) await writeCatalogFile(options.outDir, file, text);
  return {
    regions: options.regions,
    instanceTypes: instanceTypeCount,
    refreshedInstanceTypes,
    offerings: offeringCount,
    prices: priceCount,
  };
}

async function call<T>(region: string, api: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new Error(`${region}: ${api} failed: ${message}`, { cause: err });
  }
}
