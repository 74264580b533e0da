import { request } from 'node:https';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startArmEmulator, type ArmEmulator, type BootedVirtualMachine } from '../src/index.js';
import { RG, SUBNET_ID, SUBSCRIPTION, clients, nicBody, vmBody } from './sdk-clients.js';

const fast = { updateIntervalInMs: 5 };

let emulator: ArmEmulator;
const booted: BootedVirtualMachine[] = [];
beforeEach(async () => {
  booted.length = 0;
  emulator = await startArmEmulator({ pageSize: 2, onVmBooted: (b) => void booted.push(b) });
  emulator.putSubnet({ id: SUBNET_ID });
});
afterEach(async () => emulator.stop());

async function createNic(name: string) {
  const { network } = clients(emulator);
  return network.networkInterfaces.beginCreateOrUpdateAndWait(RG, name, nicBody(name), fast);
}

function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emulator.url}${path}`, { ca: emulator.ca, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ARM emulator through the real Azure SDKs', () => {
  it('creates a NIC, then a VM from it through long-running operations, and boots it', async () => {
    const { compute } = clients(emulator);
    const nic = await createNic('aks-a');
    expect(nic.provisioningState).toBe('Succeeded');
    expect(nic.ipConfigurations?.[0]?.privateIPAddress).toMatch(/^10\.224\./);
    const vm = await compute.virtualMachines.createOrUpdate(
      RG,
      'aks-a',
      vmBody(nic.id ?? '', { zone: '2' }),
      fast,
    );
    expect(vm.provisioningState).toBe('Succeeded');
    expect(vm.zones).toEqual(['2']);
    expect(vm.storageProfile?.osDisk?.managedDisk?.id).toContain('/disks/osdisk-x');
    expect(vm.osProfile?.customData).toBeUndefined(); // write-only, as in ARM
    expect(booted.map((b) => b.vm.name)).toEqual(['aks-a']);
    expect(booted[0]?.customData).toBe('#!/bin/bash\necho hi');
    expect(emulator.state.requestsTo('GET', '/operations/').length).toBeGreaterThanOrEqual(2);
    const got = await compute.virtualMachines.get(RG, 'aks-a');
    expect(got.hardwareProfile?.vmSize).toBe('Standard_D2s_v3');
  });

  it('lists across pages with nextLink', async () => {
    const { compute, network } = clients(emulator);
    for (const n of ['n1', 'n2', 'n3']) await createNic(n);
    const names: string[] = [];
    for await (const nic of network.networkInterfaces.list(RG)) names.push(nic.name ?? '');
    expect(names.sort()).toEqual(['n1', 'n2', 'n3']);
    expect(emulator.state.requestsTo('GET', 'skiptoken=2')).toHaveLength(1);
    await compute.virtualMachines.createOrUpdate(
      RG,
      'n1',
      vmBody(emulator.state.networkInterfaces()[0]?.id ?? ''),
      fast,
    );
    const vms: string[] = [];
    for await (const vm of compute.virtualMachines.list(RG)) vms.push(vm.name ?? '');
    expect(vms).toEqual(['n1']);
  });

  it('deletes a VM with its OS disk and NIC (deleteOption Delete)', async () => {
    const { compute, network } = clients(emulator);
    const nic = await createNic('aks-d');
    await compute.virtualMachines.createOrUpdate(RG, 'aks-d', vmBody(nic.id ?? ''), fast);
    expect(emulator.state.disks()).toHaveLength(1);
    await expect(
      network.networkInterfaces.beginDeleteAndWait(RG, 'aks-d', fast),
    ).rejects.toMatchObject({ code: 'NicInUse' });
    await compute.virtualMachines.delete(RG, 'aks-d', { ...fast, forceDeletion: true });
    expect(emulator.state.virtualMachines()).toHaveLength(0);
    expect(emulator.state.disks()).toHaveLength(0);
    expect(emulator.state.networkInterfaces()).toHaveLength(0);
    await expect(compute.virtualMachines.get(RG, 'aks-d')).rejects.toMatchObject({
      statusCode: 404,
      code: 'ResourceNotFound',
    });
  });

  it('places an ephemeral OS disk only when it fits the cache disk, and creates no managed disk for it', async () => {
    const { compute } = clients(emulator);
    const nic = await createNic('aks-e');
    await expect(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-e',
        vmBody(nic.id ?? '', { ephemeral: true, diskSizeGB: 128 }),
        fast,
      ),
    ).rejects.toMatchObject({
      code: 'InvalidParameter',
      message: expect.stringContaining('greater than 53 GB'),
    });
    const vm = await compute.virtualMachines.createOrUpdate(
      RG,
      'aks-e',
      vmBody(nic.id ?? '', { ephemeral: true, diskSizeGB: 50 }),
      fast,
    );
    expect(vm.storageProfile?.osDisk?.diffDiskSettings?.option).toBe('Local');
    expect(emulator.state.disks()).toHaveLength(0);
  });

  it('rejects bad requests in ARM error format', async () => {
    const { compute } = clients(emulator);
    const nic = await createNic('aks-b');
    await expect(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-b',
        vmBody(nic.id ?? '', { vmSize: 'Standard_Nope' }),
        fast,
      ),
    ).rejects.toMatchObject({
      statusCode: 400,
      code: 'InvalidParameter',
    });
    const noImage = vmBody(nic.id ?? '');
    (noImage.storageProfile as { imageReference?: unknown }).imageReference = undefined;
    await expect(
      compute.virtualMachines.createOrUpdate(RG, 'aks-b', noImage, fast),
    ).rejects.toMatchObject({
      code: 'InvalidParameter',
      message: expect.stringContaining('imageReference'),
    });
    await expect(
      compute.virtualMachines.createOrUpdate(RG, 'aks-b', vmBody(`${nic.id}-missing`), fast),
    ).rejects.toMatchObject({ code: 'NotFound' });
    await expect(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-b',
        vmBody(nic.id ?? '', { zone: '9' }),
        fast,
      ),
    ).rejects.toMatchObject({
      code: 'SkuNotAvailable',
    });
    const unauth = await rawGet(
      `/subscriptions/${SUBSCRIPTION}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachines?api-version=2024-07-01`,
    );
    expect(unauth).toMatchObject({
      status: 401,
      body: { error: { code: 'AuthenticationFailed' } },
    });
    const noVersion = await rawGet(
      `/subscriptions/${SUBSCRIPTION}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachines`,
      { authorization: 'Bearer t' },
    );
    expect(noVersion).toMatchObject({
      status: 400,
      body: { error: { code: 'MissingApiVersionParameter' } },
    });
    expect(emulator.state.virtualMachines()).toHaveLength(0);
  });

  it('fails a VM create synchronously with SkuNotAvailable for the faulted size and zone only', async () => {
    const { compute } = clients(emulator);
    emulator.faults.capacity('SkuNotAvailable', { vmSize: 'Standard_D2s_v3', zone: '1' });
    const nic = await createNic('aks-s');
    await expect(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-s',
        vmBody(nic.id ?? '', { zone: '1' }),
        fast,
      ),
    ).rejects.toMatchObject({
      statusCode: 409,
      code: 'SkuNotAvailable',
      message: expect.stringContaining('Standard_D2s_v3'),
    });
    const vm = await compute.virtualMachines.createOrUpdate(
      RG,
      'aks-s',
      vmBody(nic.id ?? '', { zone: '2' }),
      fast,
    );
    expect(vm.provisioningState).toBe('Succeeded');
  });

  it('fails an allocation late: the operation fails and the VM is left in Failed state', async () => {
    const { compute } = clients(emulator);
    emulator.faults.capacity('ZonalAllocationFailed', { zone: '3' }, { times: 1 });
    const nic = await createNic('aks-l');
    await expect(
      compute.virtualMachines.createOrUpdate(
        RG,
        'aks-l',
        vmBody(nic.id ?? '', { zone: '3' }),
        fast,
      ),
    ).rejects.toThrow(/ZonalAllocationFailed/);
    expect((await compute.virtualMachines.get(RG, 'aks-l')).provisioningState).toBe('Failed');
    expect(booted).toHaveLength(0);
  });

  it('keeps a slow operation InProgress for the scripted number of polls', async () => {
    const { compute } = clients(emulator);
    emulator.faults.slow({ resourceType: 'virtualMachines', method: 'PUT' }, 4);
    const nic = await createNic('aks-w');
    const poller = compute.virtualMachines.createOrUpdate(RG, 'aks-w', vmBody(nic.id ?? ''), fast);
    const vm = await poller;
    expect(vm.provisioningState).toBe('Succeeded');
    const polls = emulator.state.requestsTo('GET', '/Microsoft.Compute/locations/').length;
    expect(polls).toBe(5);
  });

  it('fails a NIC create late when scripted, with the error on the operation and the NIC Failed', async () => {
    emulator.faults.failLate(
      { resourceType: 'networkInterfaces', method: 'PUT' },
      'InternalServerError',
      'An unexpected error occured while processing the network profile.',
    );
    await expect(createNic('aks-f')).rejects.toThrow(/unexpected error/);
    const { network } = clients(emulator);
    expect((await network.networkInterfaces.get(RG, 'aks-f')).provisioningState).toBe('Failed');
    const statusPolls = emulator.state.requestsTo('GET', '/Microsoft.Network/locations/');
    expect(statusPolls.length).toBeGreaterThanOrEqual(1);
  });

  it('lets a PUT on a NIC or VM whose create was never polled join it with an operation of its own', async () => {
    const { compute, network } = clients(emulator);
    // A client that died after the PUTs: the operations are never polled.
    await network.networkInterfaces.beginCreateOrUpdate(RG, 'aks-j', nicBody('aks-j'), fast);
    expect(emulator.state.networkInterfaces()[0]?.properties.provisioningState).toBe('Updating');
    const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
      RG,
      'aks-j',
      nicBody('aks-j'),
      fast,
    );
    expect(nic.provisioningState).toBe('Succeeded');
    const put = emulator.state.requestsTo('PUT', '/networkInterfaces/aks-j');
    expect(put.map((r) => r.status)).toEqual([201, 200]);

    await compute.virtualMachines
      .createOrUpdate(RG, 'aks-j', vmBody(nic.id ?? ''), fast)
      .submitted();
    expect(emulator.state.virtualMachines()[0]?.properties.provisioningState).toBe('Creating');
    const vm = await compute.virtualMachines.createOrUpdate(
      RG,
      'aks-j',
      vmBody(nic.id ?? ''),
      fast,
    );
    expect(vm.provisioningState).toBe('Succeeded');
    expect(booted.map((b) => b.vm.name)).toEqual(['aks-j']);
    // The first operation, polled out late, neither boots the VM again nor changes it.
    const first = [...emulator.state.operations.values()].find(
      (o) => o.resourceId.endsWith('/virtualMachines/aks-j') && o.status === 'InProgress',
    );
    expect(first).toBeDefined();
    await rawGet(
      `/subscriptions/${SUBSCRIPTION}/providers/Microsoft.Compute/locations/southcentralus/operations/${first?.id}?api-version=2024-07-01`,
      { authorization: 'Bearer t' },
    );
    await rawGet(
      `/subscriptions/${SUBSCRIPTION}/providers/Microsoft.Compute/locations/southcentralus/operations/${first?.id}?api-version=2024-07-01`,
      { authorization: 'Bearer t' },
    );
    expect(first?.status).toBe('Succeeded');
    expect(booted.map((b) => b.vm.name)).toEqual(['aks-j']);
  });

  it('finishes a create and a delete nobody polls on its own, as ARM does, once unpolledOperationMs passes', async () => {
    const arm = await startArmEmulator({
      unpolledOperationMs: 300,
      onVmBooted: (b) => void booted.push(b),
    });
    try {
      arm.putSubnet({ id: SUBNET_ID });
      const { compute, network } = clients(arm);
      const nic = await network.networkInterfaces.beginCreateOrUpdateAndWait(
        RG,
        'aks-u',
        nicBody('aks-u'),
        fast,
      );
      // A client that died after the PUT: nobody polls the create.
      await compute.virtualMachines
        .createOrUpdate(RG, 'aks-u', vmBody(nic.id ?? ''), fast)
        .submitted();
      const vmState = () => arm.state.virtualMachines()[0]?.properties.provisioningState;
      expect(vmState()).toBe('Creating');
      await expect.poll(vmState, { timeout: 5000, interval: 50 }).toBe('Succeeded');
      expect(booted.map((b) => b.vm.name)).toEqual(['aks-u']);

      await compute.virtualMachines.beginDelete(RG, 'aks-u', fast);
      expect(vmState()).toBe('Deleting');
      await expect.poll(() => arm.state.virtualMachines().length, { timeout: 5000 }).toBe(0);
      expect(booted.map((b) => b.vm.name)).toEqual(['aks-u']);
    } finally {
      await arm.stop();
    }
  });

  it('leaves an unpolled operation running when unpolledOperationMs is null', async () => {
    const arm = await startArmEmulator({ unpolledOperationMs: null });
    try {
      arm.putSubnet({ id: SUBNET_ID });
      const { network } = clients(arm);
      await network.networkInterfaces.beginCreateOrUpdate(RG, 'aks-n', nicBody('aks-n'), fast);
      await new Promise((r) => setTimeout(r, 1500));
      expect(arm.state.networkInterfaces()[0]?.properties.provisioningState).toBe('Updating');
    } finally {
      await arm.stop();
    }
  });

  it('enforces family, spot and regional core quotas with ARM quota messages', async () => {
    const { compute } = clients(emulator);
    emulator.setQuota({ families: { standardDSv3Family: 2 }, lowPriority: 0 });
    const a = await createNic('q1');
    await compute.virtualMachines.createOrUpdate(RG, 'q1', vmBody(a.id ?? ''), fast);
    const b = await createNic('q2');
    await expect(
      compute.virtualMachines.createOrUpdate(
        RG,
        'q2',
        vmBody(b.id ?? '', { vmSize: 'Standard_D4s_v3' }),
        fast,
      ),
    ).rejects.toMatchObject({
      statusCode: 409,
      code: 'OperationNotAllowed',
      message: expect.stringMatching(
        /standardDSv3Family Cores quota.*Current Limit: 2, Current Usage: 2, Additional Required: 4/,
      ),
    });
    await expect(
      compute.virtualMachines.createOrUpdate(RG, 'q2', vmBody(b.id ?? '', { spot: true }), fast),
    ).rejects.toMatchObject({
      message: expect.stringContaining('LowPriorityCores quota'),
    });
    emulator.setQuota({ families: { standardDSv3Family: null }, totalRegional: 3 });
    await expect(
      compute.virtualMachines.createOrUpdate(RG, 'q2', vmBody(b.id ?? ''), fast),
    ).rejects.toMatchObject({
      message: expect.stringContaining('Total Regional Cores quota'),
    });
  });

  it('throttles with 429 and Retry-After, and the SDK retries', async () => {
    const { compute } = clients(emulator);
    const nic = await createNic('aks-t');
    await compute.virtualMachines.createOrUpdate(RG, 'aks-t', vmBody(nic.id ?? ''), fast);
    emulator.faults.throttle(
      { resourceType: 'virtualMachines', method: 'GET' },
      { retryAfterSeconds: 0, times: 2 },
    );
    const before = emulator.state.requests.filter((r) => r.status === 429).length;
    const vm = await compute.virtualMachines.get(RG, 'aks-t');
    expect(vm.name).toBe('aks-t');
    expect(emulator.state.requests.filter((r) => r.status === 429).length - before).toBe(2);
  });
});

describe('retail prices endpoint', () => {
  it('pages Linux, Spot, Low Priority and Windows meters for a region', async () => {
    const plain = await startArmEmulator({
      tls: false,
      pageSize: 30,
      prices: { spot: { eastus: { Standard_D2s_v3: 0.02 } } },
    });
    try {
      let url: string | null =
        `${plain.url}/api/retail/prices?api-version=2023-01-01-preview&$filter=${encodeURIComponent("serviceName eq 'Virtual Machines' and armRegionName eq 'eastus'")}`;
      const items: {
        armSkuName: string;
        skuName: string;
        productName: string;
        retailPrice: number;
      }[] = [];
      let pages = 0;
      while (url) {
        const res = (await (await fetch(url)).json()) as {
          Items: typeof items;
          NextPageLink: string | null;
        };
        items.push(...res.Items);
        url = res.NextPageLink;
        pages++;
      }
      expect(pages).toBeGreaterThan(1);
      const d2 = items.filter((i) => i.armSkuName === 'Standard_D2s_v3');
      expect(d2.map((i) => i.skuName).sort()).toEqual([
        'D2s v3',
        'D2s v3',
        'D2s v3 Low Priority',
        'D2s v3 Spot',
      ]);
      expect(d2.find((i) => i.skuName === 'D2s v3 Spot')?.retailPrice).toBe(0.02);
      expect(
        d2.find((i) => i.skuName === 'D2s v3' && !i.productName.endsWith('Windows'))?.retailPrice,
      ).toBe(0.096);
    } finally {
      await plain.stop();
    }
  });

  it('prices every size the shipped catalog prices, not only those with real ARM records', async () => {
    const plain = await startArmEmulator({ tls: false, pageSize: 100_000 });
    try {
      const url = `${plain.url}/api/retail/prices?api-version=2023-01-01-preview&$filter=${encodeURIComponent("armRegionName eq 'westeurope'")}`;
      const res = (await (await fetch(url)).json()) as {
        Items: { armSkuName: string; skuName: string; productName: string }[];
      };
      const linux = res.Items.filter(
        (i) => !i.skuName.endsWith(' Spot') && !i.skuName.endsWith(' Low Priority'),
      ).filter((i) => !i.productName.endsWith('Windows'));
      expect(linux.length).toBeGreaterThan(1000);
      expect(linux.map((i) => i.armSkuName)).toEqual(
        expect.arrayContaining([
          'Standard_D2s_v3',
          'Standard_E96ads_v5',
          'Standard_NC24ads_A100_v4',
        ]),
      );
    } finally {
      await plain.stop();
    }
  });
});

describe('control API', () => {
  it('adds, lists and clears faults over HTTP and reports state', async () => {
    const plain = await startArmEmulator({ tls: false });
    try {
      const add = await fetch(`${plain.url}/_emulator/faults`, {
        method: 'POST',
        body: JSON.stringify({
          match: { vmSize: 'Standard_D2s_v3' },
          effect: { kind: 'throttle', retryAfterSeconds: 1 },
          times: 2,
        }),
      });
      expect(add.status).toBe(201);
      expect(
        ((await (await fetch(`${plain.url}/_emulator/faults`)).json()) as unknown[]).length,
      ).toBe(1);
      const bad = await fetch(`${plain.url}/_emulator/faults`, {
        method: 'POST',
        body: JSON.stringify({ match: {}, effect: { kind: 'boom' } }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('InvalidFault');
      await fetch(`${plain.url}/_emulator/faults`, { method: 'DELETE' });
      expect(plain.faults.list()).toEqual([]);
      const state = (await (await fetch(`${plain.url}/_emulator/state`)).json()) as Record<
        string,
        unknown[]
      >;
      expect(state).toEqual({ virtualMachines: [], networkInterfaces: [], disks: [] });
    } finally {
      await plain.stop();
    }
  });
});
