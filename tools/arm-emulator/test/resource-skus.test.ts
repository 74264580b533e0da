// The VM sizes the emulator sells: by default the whole catalog shipped in provider-azure, read
// back through the real SDK; changed while it runs (new size, withdrawn size, restrictions).
import {
  AzurePricing,
  allAzureSkus,
  armSkuRecords,
  defaultZones,
  listRegionAzureSkus,
  offeredInRegion,
  toArmSkuRecord,
} from '@karpenter-ts/provider-azure';
import type { ResourceSku as SdkResourceSku } from '@azure/arm-compute';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  locationRestriction,
  shippedResourceSkus,
  startArmEmulator,
  zoneRestriction,
  type ArmEmulator,
  type ResourceSku,
} from '../src/index.js';
import { LOCATION, RG, SUBNET_ID, clients, nicBody, vmBody } from './sdk-clients.js';

const fast = { updateIntervalInMs: 5 };

let emulator: ArmEmulator;
beforeEach(async () => {
  emulator = await startArmEmulator();
  emulator.putSubnet({ id: SUBNET_ID });
});
afterEach(async () => emulator.stop());

async function listSkus(location: string): Promise<SdkResourceSku[]> {
  const skus: SdkResourceSku[] = [];
  for await (const s of clients(emulator).compute.resourceSkus.list({
    filter: `location eq '${location}'`,
  }))
    skus.push(s);
  return skus;
}

/** Creates a NIC and a VM of `vmSize` in LOCATION (zone optional); resolves the VM or rejects with ARM's error. */
async function createVm(name: string, vmSize: string, zone?: string) {
  const { compute, network } = clients(emulator);
  const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
    RG,
    name,
    nicBody(name),
    fast,
  );
  return compute.virtualMachines.createOrUpdate(
    RG,
    name,
    { ...vmBody(nic.id ?? '', { vmSize, ...(zone ? { zone } : {}) }) },
    fast,
  );
}

function sizesOfferedIn(region: string): string[] {
  const pricing = AzurePricing.fromStaticData();
  return allAzureSkus()
    .filter((s) => offeredInRegion(s, region, pricing))
    .map((s) => s.name);
}

describe('the default catalog: what provider-azure ships', () => {
  it('lists, per location, every size the shipped catalog offers there, projected to that location', async () => {
    for (const location of [LOCATION, 'eastus']) {
      const skus = await listSkus(location);
      expect(skus.map((s) => s.name)).toEqual(sizesOfferedIn(location));
      expect(skus.every((s) => s.locations?.length === 1 && s.locations[0] === location)).toBe(
        true,
      );
    }
    expect((await listSkus('eastus')).length).toBeGreaterThan(1500);
  });

  it('keeps the 20 sizes with real ARM records exact: capabilities read back as the shipped records', async () => {
    const listed = new Map((await listSkus(LOCATION)).map((s) => [s.name, s]));
    const records = armSkuRecords();
    expect(records).toHaveLength(20);
    for (const record of records) {
      const sku = listed.get(record.name);
      expect(sku, record.name).toBeDefined();
      const back = toArmSkuRecord(sku as SdkResourceSku, new Set([record.name]));
      const { regions, knownSKU: _known, ...capabilities } = back ?? ({} as never);
      expect(record, record.name).toMatchObject(capabilities);
      expect(regions?.[LOCATION]).toEqual(record.regions[LOCATION]);
    }
  });

  it('reads back, size by size, as the provider shipped it: same capabilities, same zones', async () => {
    const shipped = new Map(allAzureSkus().map((s) => [s.name, s]));
    const live = await listRegionAzureSkus(clients(emulator).compute, 'eastus');
    expect(live.length).toBe(sizesOfferedIn('eastus').length);
    for (const sku of live) {
      const expected = shipped.get(sku.name);
      const {
        capabilitySource: _a,
        inferred: _b,
        armZones: shippedZones,
        ...capabilities
      } = expected ?? ({} as never);
      const { capabilitySource, inferred: _c, armZones, ...liveCapabilities } = sku;
      expect(capabilitySource).toBe('arm');
      expect(liveCapabilities, sku.name).toEqual(capabilities);
      expect(armZones, sku.name).toEqual({
        eastus: shippedZones?.['eastus'] ?? defaultZones('eastus'),
      });
    }
  });

  it('creates VMs of sizes known only from the size tables: inferred x64, arm64 and GPU sizes', async () => {
    const shipped = new Map(allAzureSkus().map((s) => [s.name, s]));
    for (const [i, size] of [
      'Standard_D16ads_v5',
      'Standard_D4ps_v5',
      'Standard_NC16ads_A10_v4',
    ].entries()) {
      expect(shipped.get(size)?.capabilitySource).toBe('sizes');
      expect(shippedResourceSkus().find((s) => s.name === size)).toBeDefined();
      const vm = await createVm(`aks-size-${i}`, size, '2');
      expect(vm.hardwareProfile?.vmSize).toBe(size);
      expect(vm.provisioningState).toBe('Succeeded');
    }
  });

  it('accepts an ephemeral OS disk on the resource disk of an inferred size up to its size', async () => {
    const { compute, network } = clients(emulator);
    const sku = allAzureSkus().find((s) => s.name === 'Standard_D16ads_v5');
    expect(sku?.ephemeralOSPlacement).toBe('ResourceDisk');
    const gb = sku?.ephemeralOSMaxSizeGB ?? 0;
    const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
      RG,
      'aks-eph',
      nicBody('aks-eph'),
      fast,
    );
    const body = (diskSizeGB: number) => {
      const base = vmBody(nic.id ?? '', { vmSize: 'Standard_D16ads_v5', diskSizeGB });
      return {
        ...base,
        storageProfile: {
          ...base.storageProfile,
          osDisk: {
            ...base.storageProfile.osDisk,
            caching: 'ReadOnly' as const,
            diffDiskSettings: { option: 'Local' as const, placement: 'ResourceDisk' as const },
          },
        },
      };
    };
    await expect(
      compute.virtualMachines.createOrUpdate(RG, 'aks-eph', body(gb + 1), fast),
    ).rejects.toMatchObject({ statusCode: 400 });
    const vm = await compute.virtualMachines.createOrUpdate(RG, 'aks-eph', body(gb), fast);
    expect(vm.storageProfile?.osDisk?.diffDiskSettings?.placement).toBe('ResourceDisk');
  });

  it('builds the shipped catalog once per process', () => {
    expect(shippedResourceSkus()).toBe(shippedResourceSkus());
  });
});

describe('changing what the emulator sells', () => {
  const d2 = (): ResourceSku => {
    const sku = emulator.skus.get('Standard_D2s_v3');
    if (!sku) throw new Error('Standard_D2s_v3 is not sold');
    return sku;
  };

  it('a withdrawn size leaves the list and its VM creates fail as an invalid size', async () => {
    expect(emulator.skus.stopSelling('standard_d2s_v3')).toBe(true);
    expect((await listSkus(LOCATION)).some((s) => s.name === 'Standard_D2s_v3')).toBe(false);
    await expect(createVm('aks-gone', 'Standard_D2s_v3')).rejects.toMatchObject({
      statusCode: 400,
      code: 'InvalidParameter',
    });
  });

  it('a new size is listed and launchable', async () => {
    emulator.skus.sell({ ...d2(), name: 'Standard_D2s_v9', size: 'D2s_v9' });
    const listed = (await listSkus(LOCATION)).find((s) => s.name === 'Standard_D2s_v9');
    expect(listed?.capabilities?.find((c) => c.name === 'vCPUs')?.value).toBe('2');
    expect((await createVm('aks-new', 'Standard_D2s_v9', '1')).hardwareProfile?.vmSize).toBe(
      'Standard_D2s_v9',
    );
  });

  it('a Location restriction is listed and makes VM creates there fail with SkuNotAvailable', async () => {
    emulator.skus.sell({ ...d2(), restrictions: [locationRestriction(LOCATION)] });
    const listed = (await listSkus(LOCATION)).find((s) => s.name === 'Standard_D2s_v3');
    expect(listed?.restrictions).toEqual([
      {
        type: 'Location',
        values: [LOCATION],
        restrictionInfo: { locations: [LOCATION] },
        reasonCode: 'NotAvailableForSubscription',
      },
    ]);
    await expect(createVm('aks-restricted', 'Standard_D2s_v3')).rejects.toMatchObject({
      statusCode: 409,
      code: 'SkuNotAvailable',
    });
  });

  it('a Zone restriction blocks that zone only', async () => {
    emulator.skus.sell({ ...d2(), restrictions: [zoneRestriction(LOCATION, ['2'])] });
    await expect(createVm('aks-z2', 'Standard_D2s_v3', '2')).rejects.toMatchObject({
      code: 'SkuNotAvailable',
    });
    expect((await createVm('aks-z3', 'Standard_D2s_v3', '3')).zones).toEqual(['3']);
  });

  it('an error fault on the SKU list fails the list with that ARM error', async () => {
    emulator.faults.add({
      match: { resourceType: 'skus', method: 'GET' },
      effect: { kind: 'error', status: 403, code: 'AuthorizationFailed', message: 'denied' },
      times: 1,
    });
    await expect(listSkus(LOCATION)).rejects.toMatchObject({
      statusCode: 403,
      code: 'AuthorizationFailed',
    });
    expect((await listSkus(LOCATION)).length).toBeGreaterThan(1000);
  });

  it('takes the same changes through the control API', async () => {
    const small = await startArmEmulator({ tls: false, skus: [d2()] });
    const call = async (method: string, path: string, body?: unknown) => {
      const plain = await fetch(`${small.url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return plain.status;
    };
    try {
      expect(await call('PUT', '/_emulator/skus', { ...d2(), name: 'Standard_D2s_v9' })).toBe(204);
      expect(await call('DELETE', '/_emulator/skus/Standard_D2s_v3')).toBe(204);
      expect(await call('DELETE', '/_emulator/skus/Standard_D2s_v3')).toBe(404);
      expect(await call('PUT', '/_emulator/skus', { name: '' })).toBe(400);
      expect(small.skus.list().map((s) => s.name)).toEqual(['Standard_D2s_v9']);
    } finally {
      await small.stop();
    }
  });

  it('sells only the sizes given at start, and rejects a malformed record', async () => {
    const small = await startArmEmulator({ skus: [d2()] });
    try {
      expect(small.skus.list(LOCATION).map((s) => s.name)).toEqual(['Standard_D2s_v3']);
      expect(() => small.skus.sell({ ...d2(), locations: ['eastus'] })).toThrow(/locationInfo/);
    } finally {
      await small.stop();
    }
  });
});
