import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ComputeManagementClient } from '@azure/arm-compute';
import { listArmSkus } from '@karpenter-ts/provider-azure';
import {
  classifyPriceItem,
  fetchRetailPrices,
  refreshCatalog,
  retailPricesFilter,
} from '../src/index.js';
import {
  fakeCredential,
  recordedArmClient,
  startRetailPricesServer,
  type RetailPricesServer,
} from './recorded.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-000000000001';

function computeClient(requests: string[]): ComputeManagementClient {
  return new ComputeManagementClient(fakeCredential, SUBSCRIPTION, {
    httpClient: recordedArmClient(requests),
  });
}

describe('Retail Prices API', () => {
  let server: RetailPricesServer;
  beforeEach(async () => {
    server = await startRetailPricesServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('asks for USD consumption prices of virtual machines in the region, with the upstream API version', async () => {
    await fetchRetailPrices(['eastus'], { endpoint: server.endpoint });
    const first = new URL(`http://x${server.requests[0]}`);
    expect(first.searchParams.get('api-version')).toBe('2023-01-01-preview');
    expect(first.searchParams.get('$filter')).toBe(retailPricesFilter('eastus'));
    expect(retailPricesFilter('eastus')).toContain("armRegionName eq 'eastus'");
  });

  it('follows NextPageLink until it is null and splits spot from on-demand', async () => {
    const prices = await fetchRetailPrices(['eastus'], { endpoint: server.endpoint });
    expect(server.requests).toHaveLength(2);
    expect(prices.onDemand).toEqual({
      eastus: {
        Standard_D2s_v3: 0.096,
        Standard_D16plds_v5: 0.614,
        Standard_NC24ads_A100_v4: 3.673,
      },
    });
    expect(prices.spot).toEqual({
      eastus: { Standard_D2s_v3: 0.0192, Standard_NC24ads_A100_v4: 1.102 },
    });
  });

  it('drops Windows products and Low Priority meters', () => {
    const base = {
      armSkuName: 'Standard_D2s_v3',
      skuName: 'D2s v3',
      productName: 'Virtual Machines DSv3 Series',
      meterName: 'D2s v3',
    };
    const item = (over: Partial<typeof base>) =>
      ({ ...base, ...over }) as Parameters<typeof classifyPriceItem>[0];
    expect(classifyPriceItem(item({}))).toBe('onDemand');
    expect(
      classifyPriceItem(item({ productName: 'Virtual Machines DSv3 Series Windows' })),
    ).toBeUndefined();
    expect(classifyPriceItem(item({ skuName: 'D2s v3 Low Priority' }))).toBeUndefined();
    expect(classifyPriceItem(item({ skuName: 'D2s v3 Spot' }))).toBe('spot');
  });

  it('names the region and status when a page fails', async () => {
    const failing = async () => ({ ok: false, status: 429, json: async () => ({}) });
    await expect(fetchRetailPrices(['westus2'], { fetch: failing })).rejects.toThrow(
      /westus2: HTTP 429/,
    );
  });
});

describe('ARM resource SKUs through @azure/arm-compute', () => {
  it('lists VM sizes of the region with a location filter, following nextLink', async () => {
    const requests: string[] = [];
    const skus = await listArmSkus(
      computeClient(requests),
      ['eastus'],
      new Set(['Standard_D2s_v3']),
    );
    expect(requests).toHaveLength(2);
    expect(decodeURIComponent(requests[0] ?? '')).toContain("$filter=location eq 'eastus'");
    expect(skus.map((s) => s.name)).toEqual([
      'Standard_D16plds_v5',
      'Standard_D2s_v3',
      'Standard_M8-2ms',
    ]);
  });

  it('converts capabilities to the vm-skus.json record shape', async () => {
    const skus = await listArmSkus(computeClient([]), ['eastus'], new Set(['Standard_D2s_v3']));
    const d2s = skus.find((s) => s.name === 'Standard_D2s_v3');
    expect(d2s).toMatchObject({
      armFamily: 'standardDSv3Family',
      vCPUs: 2,
      memoryGiB: 8,
      arch: 'amd64',
      hyperVGenerations: ['V1', 'V2'],
      premiumIO: true,
      acceleratedNetworking: true,
      ephemeralOSDiskSupported: true,
      ephemeralOSDiskPlacements: ['ResourceDisk', 'CacheDisk'],
      cachedDiskBytes: 53687091200,
      maxResourceVolumeMB: 16384,
      encryptionAtHostSupported: true,
      trustedLaunchCapable: true,
      lowPriorityCapable: true,
      ultraSSDAvailable: true,
      knownSKU: true,
    });
  });

  it('removes restricted zones and restricted regions, and reads Arm64 and TrustedLaunchDisabled', async () => {
    const skus = await listArmSkus(computeClient([]), ['eastus'], new Set());
    expect(skus.find((s) => s.name === 'Standard_D2s_v3')?.regions).toEqual({ eastus: ['1', '2'] });
    expect(skus.find((s) => s.name === 'Standard_M8-2ms')?.regions).toEqual({});
    expect(skus.find((s) => s.name === 'Standard_D16plds_v5')).toMatchObject({
      arch: 'arm64',
      trustedLaunchCapable: false,
      knownSKU: false,
    });
  });
});

describe('refreshCatalog', () => {
  it('merges fetched regions into the data folder and keeps the other regions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refresh-azure-'));
    writeFileSync(
      join(dir, 'pricing.json'),
      JSON.stringify({
        onDemand: { westeurope: { Standard_D2s_v3: 0.11 }, eastus: { Standard_A0: 0.02 } },
        spot: null,
      }),
    );
    writeFileSync(
      join(dir, 'known-skus.json'),
      JSON.stringify({ skus: [{ name: 'Standard_D2s_v3' }] }),
    );
    const server = await startRetailPricesServer();
    try {
      const summary = await refreshCatalog({
        outDir: dir,
        regions: ['eastus'],
        prices: true,
        skus: true,
        computeClient: () => computeClient([]),
        pricesEndpoint: server.endpoint,
        now: new Date('2026-11-29T00:00:00Z'),
      });
      expect(summary).toEqual({
        regions: ['eastus'],
        onDemandPrices: 3,
        spotPrices: 2,
        skuRecords: 3,
      });
    } finally {
      await server.close();
    }
    const pricing = JSON.parse(readFileSync(join(dir, 'pricing.json'), 'utf8'));
    expect(pricing.onDemand.westeurope).toEqual({ Standard_D2s_v3: 0.11 });
    expect(pricing.onDemand.eastus.Standard_A0).toBeUndefined();
    expect(pricing.spot.eastus.Standard_D2s_v3).toBe(0.0192);
    const skus = JSON.parse(readFileSync(join(dir, 'vm-skus.json'), 'utf8'));
    expect(skus.generatedAt).toBe('2026-11-29T00:00:00.000Z');
    expect(skus.skus.find((s: { name: string }) => s.name === 'Standard_D2s_v3').knownSKU).toBe(
      true,
    );
  });

  it('refuses to refresh SKUs without a compute client', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refresh-azure-'));
    await expect(
      refreshCatalog({ outDir: dir, regions: ['eastus'], prices: false, skus: true }),
    ).rejects.toThrow(/compute client/);
  });
});
