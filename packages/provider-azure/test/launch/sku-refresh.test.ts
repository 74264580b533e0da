// The periodic VM size refresh from the ARM Resource SKUs API (every 12 h upstream):
// the real SDK lists the emulator's sizes for the region, the provider then offers exactly them.
import { locationRestriction, zoneRestriction } from '@karpenter-ts/arm-emulator';
import { InsufficientCapacityError } from '@karpenter-ts/cloudprovider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CatalogRefresher,
  DEFAULT_SKU_REFRESH_MS,
  allAzureSkus,
  listRegionAzureSkus,
  resourceSkusLocationFilter,
  type RefreshTimer,
} from '../../src/index.js';
import { REGION, nodeClaim, startHarness, type Harness } from './harness.js';

const pool = { spec: { template: { spec: { nodeClassRef: { name: 'default' } } } } } as never;

/** A timer whose tasks run when the test says so. */
class ManualTimer implements RefreshTimer {
  readonly tasks: { intervalMs: number; task: () => void }[] = [];
  every(intervalMs: number, task: () => void): () => void {
    this.tasks.push({ intervalMs, task });
    return () => {};
  }
  fire(): void {
    for (const t of this.tasks) t.task();
  }
}

let h: Harness;
let timer: ManualTimer;
let refresher: CatalogRefresher;
let logs: string[];

beforeEach(async () => {
  // The provider starts from the 20 sizes with real ARM records (the harness default).
  h = await startHarness();
  timer = new ManualTimer();
  logs = [];
  refresher = new CatalogRefresher({
    catalog: h.provider,
    region: REGION,
    fetchSkus: (region) => listRegionAzureSkus(h.clients.compute, region),
    timer,
    logger: {
      info: (m, f) => void logs.push(`info ${m} ${JSON.stringify(f)}`),
      warn: (m, f) => void logs.push(`warn ${m} ${JSON.stringify(f)}`),
    },
  });
});
afterEach(async () => {
  refresher.stop();
  await h.stop();
});

async function instanceTypeNames(provider = h.provider): Promise<string[]> {
  return (await provider.getInstanceTypes(pool)).map((t) => t.name);
}

function skuListRequests() {
  return h.arm.state.requestsTo('GET', '/providers/Microsoft.Compute/skus');
}

describe('VM size refresh from the Resource SKUs API', () => {
  it('lists the region with a location filter at start and then every 12 hours, prices untouched', async () => {
    await refresher.start();
    expect(timer.tasks.map((t) => t.intervalMs)).toEqual([DEFAULT_SKU_REFRESH_MS]);
    expect(DEFAULT_SKU_REFRESH_MS).toBe(12 * 3600 * 1000);
    const [first, ...rest] = skuListRequests();
    expect(rest).toEqual([]);
    const url = new URL(first?.url ?? '', h.arm.url);
    expect(url.searchParams.get('$filter')).toBe(`location eq '${REGION}'`);
    expect(resourceSkusLocationFilter(REGION)).toBe(`location eq '${REGION}'`);
    // No price source: the retail prices endpoint is never asked.
    expect(h.arm.state.requestsTo('GET', '/api/retail/prices')).toEqual([]);
    timer.fire();
    await refresher.refreshSkus();
    expect(skuListRequests()).toHaveLength(2);
  });

  it('offers after a refresh exactly what a provider built on the whole shipped catalog offers', async () => {
    const before = await instanceTypeNames();
    expect(before.length).toBeLessThanOrEqual(20);
    expect(await refresher.refreshSkus()).toBe(true);
    const sold = h.arm.skus.list(REGION).length;
    expect(h.provider.skus).toHaveLength(sold);
    expect(h.provider.skus.every((s) => Object.keys(s.armZones ?? {}).join() === REGION)).toBe(
      true,
    );
    expect(logs).toEqual([
      `info refreshed VM sizes ${JSON.stringify({ region: REGION, sizes: sold })}`,
    ]);
    const shipped = await startHarness({ skus: allAzureSkus() });
    try {
      const expected = await instanceTypeNames(shipped.provider);
      expect(expected.length).toBeGreaterThan(900);
      expect(await instanceTypeNames()).toEqual(expected);
    } finally {
      await shipped.stop();
    }
  });

  it('a size the emulator starts selling appears at the next refresh and launches', async () => {
    await refresher.start();
    const d2 = h.arm.skus.get('Standard_D2s_v3');
    if (!d2) throw new Error('the emulator does not sell Standard_D2s_v3');
    h.arm.skus.sell({ ...d2, name: 'Standard_D2s_v9', size: 'D2s_v9' });
    expect(await instanceTypeNames()).not.toContain('Standard_D2s_v9');
    timer.fire();
    expect(await refresher.refreshSkus()).toBe(true);
    const added = (await h.provider.getInstanceTypes(pool)).find(
      (t) => t.name === 'Standard_D2s_v9',
    );
    expect(added?.capacity['cpu']).toBe(2000);
    const launched = await h.provider.create(
      nodeClaim('general-new', { instanceTypes: ['Standard_D2s_v9'] }),
    );
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('Standard_D2s_v9');
  });

  it('a size the emulator stops selling disappears at the next refresh and is no longer launched', async () => {
    await refresher.start();
    expect(await instanceTypeNames()).toContain('Standard_D4s_v3');
    h.arm.skus.stopSelling('Standard_D4s_v3');
    timer.fire();
    expect(await refresher.refreshSkus()).toBe(true);
    expect(await instanceTypeNames()).not.toContain('Standard_D4s_v3');
    await expect(
      h.provider.create(nodeClaim('general-gone', { instanceTypes: ['Standard_D4s_v3'] })),
    ).rejects.toBeInstanceOf(InsufficientCapacityError);
  });

  it('a failing SKU list keeps the previous list, and the next good answer replaces it', async () => {
    await refresher.start();
    const good = await instanceTypeNames();
    const fault = h.arm.faults.add({
      match: { resourceType: 'skus', method: 'GET' },
      effect: { kind: 'error', status: 403, code: 'AuthorizationFailed', message: 'no read' },
    });
    h.arm.skus.stopSelling('Standard_D4s_v3');
    expect(await refresher.refreshSkus()).toBe(false);
    expect(await instanceTypeNames()).toEqual(good);
    expect(logs.at(-1)).toMatch(
      /^warn VM size refresh failed; keeping the last good sizes .*"region":"southcentralus".*AuthorizationFailed \(HTTP 403\)/,
    );
    h.arm.faults.remove(fault);
    expect(await refresher.refreshSkus()).toBe(true);
    expect(await instanceTypeNames()).not.toContain('Standard_D4s_v3');
  });

  it('a failing first list keeps the catalog the provider started with', async () => {
    h.arm.faults.add({
      match: { resourceType: 'skus' },
      effect: { kind: 'error', status: 403, code: 'AuthorizationFailed', message: 'no read' },
    });
    const shipped = await instanceTypeNames();
    await refresher.start();
    expect(await instanceTypeNames()).toEqual(shipped);
  });

  it('drops a size restricted in the region and the zones restricted for a size', async () => {
    const d2 = h.arm.skus.get('Standard_D2s_v3');
    const d4 = h.arm.skus.get('Standard_D4s_v3');
    if (!d2 || !d4) throw new Error('the emulator does not sell the D2s_v3/D4s_v3 sizes');
    h.arm.skus.sell({ ...d2, restrictions: [locationRestriction(REGION)] });
    h.arm.skus.sell({ ...d4, restrictions: [zoneRestriction(REGION, ['2'])] });
    // A restriction in another region does not matter here.
    const e4 = h.arm.skus.get('Standard_E4d_v5');
    if (!e4) throw new Error('the emulator does not sell Standard_E4d_v5');
    h.arm.skus.sell({ ...e4, restrictions: [locationRestriction('westcentralus')] });

    const listed = await listRegionAzureSkus(h.clients.compute, REGION);
    expect(listed.find((s) => s.name === 'Standard_D2s_v3')).toBeUndefined();
    expect(listed.find((s) => s.name === 'Standard_D4s_v3')?.armZones).toEqual({
      [REGION]: ['1', '3'],
    });
    expect(listed.find((s) => s.name === 'Standard_E4d_v5')).toBeDefined();

    expect(await refresher.refreshSkus()).toBe(true);
    const types = await h.provider.getInstanceTypes(pool);
    expect(types.map((t) => t.name)).not.toContain('Standard_D2s_v3');
    const zones = new Set(
      types.find((t) => t.name === 'Standard_D4s_v3')?.offerings.map((o) => o.zone),
    );
    expect([...zones].sort()).toEqual(['0', `${REGION}-1`, `${REGION}-3`]);
  });

  it('rejects a region name that would break the filter', async () => {
    await expect(listRegionAzureSkus(h.clients.compute, "eastus' or 1 eq 1")).rejects.toThrow(
      /region: .* is not an ARM region name/,
    );
  });
});
