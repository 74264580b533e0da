// Periodic catalog refresh against the emulator's retail prices endpoint.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AzurePricing,
  CatalogRefresher,
  DEFAULT_PRICING_REFRESH_MS,
  allAzureSkus,
  fetchRetailPrices,
  type RefreshTimer,
} from '../../src/index.js';
import { REGION, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => h.stop());

/** A timer whose tasks run when the test says so. */
class ManualTimer implements RefreshTimer {
  readonly tasks: { intervalMs: number; task: () => void; cancelled: boolean }[] = [];
  every(intervalMs: number, task: () => void): () => void {
    const entry = { intervalMs, task, cancelled: false };
    this.tasks.push(entry);
    return () => void (entry.cancelled = true);
  }
  fire(): void {
    for (const t of this.tasks) if (!t.cancelled) t.task();
  }
}

const pool = { spec: { template: { spec: { nodeClassRef: { name: 'default' } } } } } as never;

async function offeringPrice(size: string, capacityType: string, zone = `${REGION}-1`) {
  const types = await h.provider.getInstanceTypes(pool);
  const it = types.find((t) => t.name === size);
  return it?.offerings.find((o) => o.capacityType === capacityType && o.zone === zone)?.price;
}

function refresher(
  timer: RefreshTimer,
  extra: Partial<ConstructorParameters<typeof CatalogRefresher>[0]> = {},
) {
  const logs: string[] = [];
  const r = new CatalogRefresher({
    catalog: h.provider,
    region: REGION,
    fetchPrices: (region) =>
      fetchRetailPrices({ region, endpoint: h.arm.url, ...(h.arm.ca ? { tlsCA: h.arm.ca } : {}) }),
    timer,
    logger: {
      info: (m) => void logs.push(`info ${m}`),
      warn: (m, f) => void logs.push(`warn ${m}: ${String(f?.['error'])}`),
    },
    ...extra,
  });
  return { r, logs };
}

/** The emulator throttles every retail prices GET (429, Retry-After 0), so the fetch fails after its retries. */
function failPrices(): string {
  return h.arm.faults.throttle({ resourceType: 'prices', method: 'GET' }, { retryAfterSeconds: 0 });
}

describe('catalog refresh', () => {
  it('starts from the shipped catalog (spot priced as on-demand) and installs live spot prices at start', async () => {
    const shipped = AzurePricing.fromStaticData().onDemandPrice(REGION, 'Standard_D2s_v3');
    expect(await offeringPrice('Standard_D2s_v3', 'spot')).toBe(shipped);
    const { r, logs } = refresher(new ManualTimer());
    await r.start();
    expect(await offeringPrice('Standard_D2s_v3', 'spot')).toBe(0.022);
    expect(await offeringPrice('Standard_D2s_v3', 'on-demand')).toBe(0.11);
    expect(logs).toEqual(['info refreshed retail prices']);
  });

  it('a failed first refresh logs and keeps serving the shipped prices', async () => {
    failPrices();
    const shipped = await offeringPrice('Standard_D2s_v3', 'on-demand');
    const { r, logs } = refresher(new ManualTimer());
    await r.start();
    expect(await offeringPrice('Standard_D2s_v3', 'on-demand')).toBe(shipped);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      /^warn retail price refresh failed; keeping the last good prices: .*429/,
    );
  });

  it('a failed later refresh keeps the last good live prices; the next tick recovers', async () => {
    h.arm.faults.clear();
    const timer = new ManualTimer();
    const { r, logs } = refresher(timer);
    await r.start();
    const fault = failPrices();
    expect(await r.refreshPrices()).toBe(false);
    expect(await offeringPrice('Standard_D2s_v3', 'spot')).toBe(0.022);
    h.arm.faults.remove(fault);
    const before = h.arm.state.requestsTo('GET', '/api/retail/prices').length;
    timer.fire();
    expect(await r.refreshPrices()).toBe(true);
    expect(h.arm.state.requestsTo('GET', '/api/retail/prices').length).toBeGreaterThan(before);
    expect(logs.map((l) => l.split(':')[0])).toEqual([
      'info refreshed retail prices',
      'warn retail price refresh failed; keeping the last good prices',
      'info refreshed retail prices',
    ]);
  });

  it('refreshes prices every 12 hours by default and SKUs only when a SKU source is configured', async () => {
    const withoutSkus = new ManualTimer();
    await refresher(withoutSkus).r.start();
    expect(withoutSkus.tasks.map((t) => t.intervalMs)).toEqual([DEFAULT_PRICING_REFRESH_MS]);
    expect(DEFAULT_PRICING_REFRESH_MS).toBe(12 * 3600 * 1000);

    const withSkus = new ManualTimer();
    const only = allAzureSkus().filter((s) => s.name === 'Standard_D2s_v3');
    const { r } = refresher(withSkus, { fetchSkus: async () => only, skuIntervalMs: 3600_000 });
    await r.start();
    expect(withSkus.tasks.map((t) => t.intervalMs)).toEqual([DEFAULT_PRICING_REFRESH_MS, 3600_000]);
    expect((await h.provider.getInstanceTypes(pool)).map((t) => t.name)).toEqual([
      'Standard_D2s_v3',
    ]);
    r.stop();
    expect(withSkus.tasks.every((t) => t.cancelled)).toBe(true);
  });

  it('a SKU source that fails or answers nothing keeps the current sizes', async () => {
    const sizes = (await h.provider.getInstanceTypes(pool)).length;
    const { r, logs } = refresher(new ManualTimer(), { fetchSkus: async () => [] });
    expect(await r.refreshSkus()).toBe(false);
    expect((await h.provider.getInstanceTypes(pool)).length).toBe(sizes);
    expect(logs).toEqual([
      'warn VM size refresh failed; keeping the last good sizes: the SKU source returned no VM sizes',
    ]);
  });

  it('without a price source never asks for prices, and with no source at all schedules nothing', async () => {
    const timer = new ManualTimer();
    const r = new CatalogRefresher({ catalog: h.provider, region: REGION, timer });
    await r.start();
    expect(timer.tasks).toEqual([]);
    expect(await r.refreshPrices()).toBe(false);
    expect(await r.refreshSkus()).toBe(false);
    expect(h.arm.state.requestsTo('GET', '/api/retail/prices')).toEqual([]);
    expect(h.provider.pricing).toBeUndefined();
  });

  it('rejects a non-positive interval naming the option', () => {
    expect(() => refresher(new ManualTimer(), { pricingIntervalMs: 0 })).toThrow(
      /pricingIntervalMs/,
    );
  });
});
