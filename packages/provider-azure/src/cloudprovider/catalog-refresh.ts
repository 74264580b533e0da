/**
 * Periodic refresh of the Azure catalog (as upstream `Azure/karpenter-provider-azure` refreshes
 * SKUs and prices), each part only when it has a source: retail prices of the cluster's region at
 * start and every 12 hours by default, and VM sizes (the Resource SKUs API of the region, see
 * `catalog/resource-skus.ts`) at start and every 12 hours by default, as upstream. A successful
 * refresh replaces the provider's data and rebuilds its instance-type cache; a failed or empty one
 * is logged and the provider keeps serving the last good data (at first, the shipped catalog), as
 * upstream does.
 *
 * Timers go through an injectable {@link RefreshTimer} so tests drive refreshes without waiting.
 */
import { AzurePricing } from '../catalog/pricing.js';
import type { AzureSku } from '../catalog/sku.js';
import type { AzureProviderLogger } from './options.js';
import { pricingWithLiveRegion, type RegionPrices } from './retail-prices.js';

/** Upstream's pricing refresh period: 12 hours, in ms. */
export const DEFAULT_PRICING_REFRESH_MS = 12 * 60 * 60 * 1000;

/** Upstream's VM size (resource SKU) refresh period: 12 hours, in ms. */
export const DEFAULT_SKU_REFRESH_MS = 12 * 60 * 60 * 1000;

/** Schedules a repeating task; returns a function that cancels it. */
export interface RefreshTimer {
  every(intervalMs: number, task: () => void): () => void;
}

/** The real timer (`setInterval`, unref'd so it never keeps the process alive). */
export const systemRefreshTimer: RefreshTimer = {
  every(intervalMs, task) {
    const handle = setInterval(task, intervalMs);
    handle.unref();
    return () => clearInterval(handle);
  },
};

/** What the refresher updates (implemented by AzureCloudProvider). */
export interface RefreshableCatalog {
  updateCatalog(update: {
    readonly pricing?: AzurePricing;
    readonly skus?: readonly AzureSku[];
  }): void;
}

/** Options of {@link CatalogRefresher}. */
export interface CatalogRefreshOptions {
  readonly catalog: RefreshableCatalog;
  /** ARM region whose prices and VM sizes are fetched, e.g. `eastus`. */
  readonly region: string;
  /** Prices for regions other than `region`; default the shipped static table. */
  readonly basePricing?: AzurePricing;
  /**
   * Fetches one region's live prices (e.g. `fetchRetailPrices`); without it prices are never
   * refreshed and the shipped table stays (upstream refreshes prices in the public cloud only).
   */
  readonly fetchPrices?: (region: string) => Promise<RegionPrices>;
  /**
   * Fetches the VM sizes sold in one region (e.g. `listRegionAzureSkus(clients.compute, region)`);
   * without it sizes are never refreshed and the shipped catalog stays.
   */
  readonly fetchSkus?: (region: string) => Promise<readonly AzureSku[]>;
  /** Period of the price refresh, ms; default {@link DEFAULT_PRICING_REFRESH_MS}. */
  readonly pricingIntervalMs?: number;
  /** Period of the SKU refresh, ms; default {@link DEFAULT_SKU_REFRESH_MS}. */
  readonly skuIntervalMs?: number;
  readonly timer?: RefreshTimer;
  readonly logger?: AzureProviderLogger;
}

/** Refreshes prices and VM sizes (each when it has a source) into the provider on intervals. */
export class CatalogRefresher {
  readonly #o: CatalogRefreshOptions;
  readonly #base: AzurePricing;
  #cancel: (() => void)[] = [];
  #started = false;
  #inflightPrices: Promise<boolean> | undefined;
  #inflightSkus: Promise<boolean> | undefined;

  constructor(options: CatalogRefreshOptions) {
    for (const [name, ms] of [
      ['pricingIntervalMs', options.pricingIntervalMs],
      ['skuIntervalMs', options.skuIntervalMs],
    ] as const) {
      if (ms !== undefined && !(Number.isFinite(ms) && ms > 0))
        throw new Error(`catalog refresh: ${name} must be a positive number of ms, got ${ms}`);
    }
    this.#o = options;
    this.#base = options.basePricing ?? AzurePricing.fromStaticData();
  }

  /**
   * Refreshes each part that has a source once now and then on its interval. Calling it twice
   * is a no-op. Returns the initial refreshes so callers may wait for them; they never reject.
   */
  start(): Promise<void> {
    if (this.#started) return Promise.resolve();
    this.#started = true;
    const timer = this.#o.timer ?? systemRefreshTimer;
    const first: Promise<boolean>[] = [];
    if (this.#o.fetchPrices) {
      const pricingMs = this.#o.pricingIntervalMs ?? DEFAULT_PRICING_REFRESH_MS;
      this.#cancel.push(timer.every(pricingMs, () => void this.refreshPrices()));
      first.push(this.refreshPrices());
    }
    if (this.#o.fetchSkus) {
      const skuMs = this.#o.skuIntervalMs ?? DEFAULT_SKU_REFRESH_MS;
      this.#cancel.push(timer.every(skuMs, () => void this.refreshSkus()));
      first.push(this.refreshSkus());
    }
    return Promise.all(first).then(() => undefined);
  }

  /** Cancels the intervals (a refresh in flight still completes); {@link start} may follow. */
  stop(): void {
    for (const cancel of this.#cancel) cancel();
    this.#cancel = [];
    this.#started = false;
  }

  /**
   * Fetches the region's prices and, when they hold any on-demand price, installs them. Resolves
   * true on success, false on failure (logged; the last good prices stay) and when no price
   * source is configured. Concurrent calls share one fetch.
   */
  refreshPrices(): Promise<boolean> {
    this.#inflightPrices ??= this.#refreshPrices().finally(() => {
      this.#inflightPrices = undefined;
    });
    return this.#inflightPrices;
  }

  /** Like {@link refreshPrices} for VM sizes; resolves false when no SKU source is configured. */
  refreshSkus(): Promise<boolean> {
    this.#inflightSkus ??= this.#refreshSkus().finally(() => {
      this.#inflightSkus = undefined;
    });
    return this.#inflightSkus;
  }

  async #refreshPrices(): Promise<boolean> {
    const region = this.#o.region;
    const fetch = this.#o.fetchPrices;
    if (!fetch) return false;
    try {
      const live = await fetch(region);
      const sizes = Object.keys(live.onDemand).length;
      // An empty answer would make every size unpriced (999): treat it as a failure.
      if (sizes === 0) throw new Error(`no on-demand prices for region ${region}`);
      this.#o.catalog.updateCatalog({ pricing: pricingWithLiveRegion(this.#base, region, live) });
      this.#o.logger?.info('refreshed retail prices', {
        region,
        onDemandSizes: sizes,
        spotSizes: Object.keys(live.spot).length,
      });
      return true;
    } catch (err) {
      this.#o.logger?.warn('retail price refresh failed; keeping the last good prices', {
        region,
        error: (err as Error).message,
      });
      return false;
    }
  }

  async #refreshSkus(): Promise<boolean> {
    const region = this.#o.region;
    const fetch = this.#o.fetchSkus;
    if (!fetch) return false;
    try {
      const skus = await fetch(region);
      // An empty answer would leave nothing to launch: treat it as a failure.
      if (skus.length === 0) throw new Error('the SKU source returned no VM sizes');
      this.#o.catalog.updateCatalog({ skus });
      this.#o.logger?.info('refreshed VM sizes', { region, sizes: skus.length });
      return true;
    } catch (err) {
      this.#o.logger?.warn('VM size refresh failed; keeping the last good sizes', {
        region,
        error: (err as Error).message,
      });
      return false;
    }
  }
}
