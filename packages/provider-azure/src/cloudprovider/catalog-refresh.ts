/**
 * Periodic refresh of the Azure catalog (reference azure-provider.md 6): retail prices of the
 * cluster's region are fetched at start and every 12 hours by default; VM sizes (resource SKUs)
 * are refreshed on their own interval when a SKU source is configured. A successful refresh
 * replaces the provider's data and rebuilds its instance-type cache; a failed one is logged and
 * the provider keeps serving the last good data (at first, the shipped catalog), as upstream does.
 *
 * Timers go through an injectable {@link RefreshTimer} so tests drive refreshes without waiting.
 */
import { AzurePricing } from '../catalog/pricing.js';
import type { AzureSku } from '../catalog/sku.js';
import type { AzureProviderLogger } from './options.js';
import { fetchRetailPrices, pricingWithLiveRegion, type RegionPrices } from './retail-prices.js';

/** Upstream's pricing refresh period: 12 hours, in ms. */
export const DEFAULT_PRICING_REFRESH_MS = 12 * 60 * 60 * 1000;

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
  /** ARM region whose prices are fetched, e.g. `eastus`. */
  readonly region: string;
  /** Prices for regions other than `region`; default the shipped static table. */
  readonly basePricing?: AzurePricing;
  /** Fetches one region's live prices; default {@link fetchRetailPrices} on the public endpoint. */
  readonly fetchPrices?: (region: string) => Promise<RegionPrices>;
  /** Source of VM sizes (e.g. the Resource SKUs API); without it sizes are never refreshed. */
  readonly fetchSkus?: () => Promise<readonly AzureSku[]>;
  /** Period of the price refresh, ms; default {@link DEFAULT_PRICING_REFRESH_MS}. */
  readonly pricingIntervalMs?: number;
  /** Period of the SKU refresh, ms; default the pricing period. */
  readonly skuIntervalMs?: number;
  readonly timer?: RefreshTimer;
  readonly logger?: AzureProviderLogger;
}

/** Refreshes prices (and SKUs when a source is given) into the provider on an interval. */
export class CatalogRefresher {
  readonly #o: CatalogRefreshOptions;
  readonly #base: AzurePricing;
  #cancel: (() => void)[] = [];
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
   * Refreshes once now (not awaited) and then on the intervals. Calling it twice is a no-op.
   * Returns the initial refreshes so callers may wait for them; they never reject.
   */
  start(): Promise<void> {
    if (this.#cancel.length > 0) return Promise.resolve();
    const timer = this.#o.timer ?? systemRefreshTimer;
    const pricingMs = this.#o.pricingIntervalMs ?? DEFAULT_PRICING_REFRESH_MS;
    this.#cancel.push(timer.every(pricingMs, () => void this.refreshPrices()));
    const first: Promise<boolean>[] = [this.refreshPrices()];
    if (this.#o.fetchSkus) {
      this.#cancel.push(
        timer.every(this.#o.skuIntervalMs ?? pricingMs, () => void this.refreshSkus()),
      );
      first.push(this.refreshSkus());
    }
    return Promise.all(first).then(() => undefined);
  }

  /** Cancels the intervals (a refresh in flight still completes). */
  stop(): void {
    for (const cancel of this.#cancel) cancel();
    this.#cancel = [];
  }

  /**
   * Fetches the region's prices and, when they hold any on-demand price, installs them. Resolves
   * true on success, false on failure (logged; the last good prices stay). Concurrent calls share one fetch.
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
    try {
      const fetch = this.#o.fetchPrices ?? ((r: string) => fetchRetailPrices({ region: r }));
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
    if (!this.#o.fetchSkus) return false;
    try {
      const skus = await this.#o.fetchSkus();
      if (skus.length === 0) throw new Error('the SKU source returned no VM sizes');
      this.#o.catalog.updateCatalog({ skus });
      this.#o.logger?.info('refreshed VM sizes', { sizes: skus.length });
      return true;
    } catch (err) {
      this.#o.logger?.warn('VM size refresh failed; keeping the last good sizes', {
        error: (err as Error).message,
      });
      return false;
    }
  }
}
