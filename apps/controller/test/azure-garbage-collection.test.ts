import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import type { Node, NodeClaim } from '@karpenter-ts/api';
import {
  AzureCloudProvider,
  allAzureSkus,
  createArmClients,
  providerIDForVm,
  type AKSNodeClass,
  type AzureGarbage,
} from '@karpenter-ts/provider-azure';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AZURE_GC_INTERVAL_SECONDS,
  azureGarbageCollectionTask,
} from '../src/providers/azure-garbage-collection.js';

function claim(name: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
      requirements: [],
    },
  } as NodeClaim;
}

/** A provider that deletes every VM and NIC named after a node claim not in the given set. */
class FakeAzure {
  readonly calls: string[][] = [];
  constructor(private readonly resources: string[]) {}
  async collectGarbage(names: ReadonlySet<string>): Promise<AzureGarbage> {
    this.calls.push([...names].sort());
    const leaked = this.resources.filter((r) => !names.has(r.replace(/^aks-/, '')));
    return {
      virtualMachines: leaked,
      providerIDs: leaked.map(
        (r) =>
          `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/${r}`,
      ),
      networkInterfaces: leaked,
    };
  }
}

describe('Azure garbage collection task', () => {
  it('runs every 2 minutes (upstream GC period) and hands the provider the NodeClaim names in the cluster', async () => {
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    await client.create('NodeClaim', claim('general-a'));
    await client.create('NodeClaim', claim('general-b'));
    const provider = new FakeAzure(['aks-general-a', 'aks-general-gone']);
    const logged: { fields: object; message: string }[] = [];
    const task = azureGarbageCollectionTask({
      provider,
      client,
      logger: { info: (fields, message) => void logged.push({ fields, message }) },
    });
    expect(task.intervalSeconds).toBe(AZURE_GC_INTERVAL_SECONDS);
    expect(AZURE_GC_INTERVAL_SECONDS).toBe(120);
    expect(await task.run()).toMatchObject({
      virtualMachines: ['aks-general-gone'],
      networkInterfaces: ['aks-general-gone'],
      nodes: [],
    });
    expect(provider.calls).toEqual([['general-a', 'general-b']]);
    expect(logged).toEqual([
      {
        fields: {
          virtualMachines: ['aks-general-gone'],
          networkInterfaces: ['aks-general-gone'],
          nodes: [],
        },
        message: 'garbage collected Azure resources without a NodeClaim',
      },
    ]);
  });

  it('logs nothing when nothing was collected, and a provider error fails the run', async () => {
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    await client.create('NodeClaim', claim('general-a'));
    const logged: string[] = [];
    const quiet = azureGarbageCollectionTask({
      provider: new FakeAzure(['aks-general-a']),
      client,
      logger: { info: (_f, m) => void logged.push(m) },
    });
    await quiet.run();
    expect(logged).toEqual([]);
    const failing = azureGarbageCollectionTask({
      provider: {
        collectGarbage: () => Promise.reject(new Error('ARM list failed: HTTP 503')),
      },
      client,
      logger: { info: () => {} },
    });
    await expect(failing.run()).rejects.toThrow(/HTTP 503/);
  });
});

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000gc';
const NODE_RG = 'MC_rg_gc-cluster_southcentralus';
const SUBNET = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes`;

/** A ready AKSNodeClass with one Gen2 Ubuntu image. */
const nodeClass: AKSNodeClass = {
  apiVersion: 'karpenter.azure.com/v1beta1',
  kind: 'AKSNodeClass',
  metadata: { name: 'default', generation: 1 },
  spec: { imageFamily: 'Ubuntu', osDiskSizeGB: 64 },
  status: {
    kubernetesVersion: '1.33.2',
    images: [
      {
        id: '/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202501.01.0',
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    ],
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  },
};

function launchable(name: string): NodeClaim {
  const nc = claim(name);
  nc.metadata.labels = { 'karpenter.sh/nodepool': 'general' };
  nc.spec.requirements = [
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_D2s_v3'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
  ];
  nc.spec.resources = { requests: { cpu: '500m' } };
  return nc;
}

function node(name: string, providerID: string, finalizers: string[] = []): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, ...(finalizers.length > 0 ? { finalizers } : {}) },
    spec: { providerID },
  } as Node;
}

describe('Azure garbage collection on the ARM emulator', () => {
  let arm: ArmEmulator;
  let provider: AzureCloudProvider;
  let client: MemoryKubeClient;

  beforeEach(async () => {
    arm = await startArmEmulator();
    client = new MemoryKubeClient({ clock: new ManualClock() });
    provider = new AzureCloudProvider({
      clients: createArmClients({
        subscriptionId: SUBSCRIPTION,
        credential: {
          getToken: async () => ({ token: 't', expiresOnTimestamp: Date.now() + 3600_000 }),
        },
        endpoint: arm.url,
        ...(arm.ca ? { tlsCA: arm.ca } : {}),
        retry: { maxRetries: 1, retryDelayInMs: 5, maxRetryDelayInMs: 20 },
      }),
      subscriptionId: SUBSCRIPTION,
      location: 'southcentralus',
      nodeResourceGroup: NODE_RG,
      clusterName: 'gc-cluster',
      clusterEndpoint: 'https://gc-cluster.hcp.southcentralus.azmk8s.io:443',
      kubeletBootstrapToken: 'abcdef.0123456789abcdef',
      sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE test',
      vnetSubnetID: SUBNET,
      getNodeClass: async (name) => (name === 'default' ? nodeClass : undefined),
      skus: allAzureSkus().filter((s) => s.name === 'Standard_D2s_v3'),
      random: () => 0,
      pollIntervalMs: 5,
    });
  });
  afterEach(async () => arm.stop());

  const providerID = (claimName: string) =>
    providerIDForVm(SUBSCRIPTION, NODE_RG, `aks-${claimName}`);

  it('deletes the Nodes of collected VMs (provider IDs compared case-insensitively), keeps VMs inside the grace period and the Nodes of live NodeClaims', async () => {
    const live = await provider.create(launchable('general-live'));
    await client.create('NodeClaim', live);
    for (const name of ['general-gone', 'general-gone2', 'general-young'])
      await provider.create(launchable(name));
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-live', 600);
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-gone', 360);
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-gone2', 360);
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-young', 240);
    await client.create('Node', node('aks-general-live', providerID('general-live')));
    // A kubelet may write the resource group in its original case.
    await client.create(
      'Node',
      node('aks-general-gone', providerID('general-gone').replace(NODE_RG.toLowerCase(), NODE_RG)),
    );
    // The termination finalizer keeps this one until the termination controller releases it.
    await client.create(
      'Node',
      node('aks-general-gone2', providerID('general-gone2'), ['karpenter.sh/termination']),
    );
    await client.create('Node', node('aks-general-young', providerID('general-young')));
    await client.create(
      'Node',
      node(
        'aks-system-0',
        'azure:///subscriptions/x/resourceGroups/y/providers/Microsoft.Compute/virtualMachineScaleSets/aks-system/virtualMachines/0',
      ),
    );
    const logged: object[] = [];
    const task = azureGarbageCollectionTask({
      provider,
      client,
      logger: { info: (fields) => void logged.push(fields) },
    });

    expect(await task.run()).toEqual({
      virtualMachines: ['aks-general-gone', 'aks-general-gone2'],
      providerIDs: [providerID('general-gone'), providerID('general-gone2')],
      networkInterfaces: [],
      nodes: ['aks-general-gone', 'aks-general-gone2'],
    });
    expect(logged).toEqual([
      {
        virtualMachines: ['aks-general-gone', 'aks-general-gone2'],
        networkInterfaces: [],
        nodes: ['aks-general-gone', 'aks-general-gone2'],
      },
    ]);
    const names = (list: { name: string }[]) => list.map((r) => r.name).sort();
    expect(names(arm.state.virtualMachines())).toEqual(['aks-general-live', 'aks-general-young']);
    expect(names(arm.state.networkInterfaces())).toEqual(['aks-general-live', 'aks-general-young']);
    expect(names(arm.state.disks())).toEqual(['aks-general-live', 'aks-general-young']);
    const nodes = await client.list('Node');
    expect(nodes.map((n) => n.metadata?.name).sort()).toEqual([
      'aks-general-gone2',
      'aks-general-live',
      'aks-general-young',
      'aks-system-0',
    ]);
    expect(
      nodes.find((n) => n.metadata?.name === 'aks-general-gone2')?.metadata?.deletionTimestamp,
    ).toBeDefined();
  });

  it('keeps the Node a NodeClaim owns when that NodeClaim appeared while the VMs were deleted', async () => {
    await provider.create(launchable('general-race'));
    await client.create('Node', node('aks-general-race', providerID('general-race')));
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-race', 360);
    const racing = {
      collectGarbage: async (names: ReadonlySet<string>) => {
        const out = await provider.collectGarbage(names);
        const adopter = claim('general-race');
        adopter.status = { providerID: providerID('general-race'), nodeName: 'aks-general-race' };
        await client.create('NodeClaim', adopter);
        return out;
      },
    };
    const task = azureGarbageCollectionTask({
      provider: racing,
      client,
      logger: { info: () => {} },
    });
    expect(await task.run()).toMatchObject({
      virtualMachines: ['aks-general-race'],
      nodes: [],
    });
    expect((await client.list('Node')).map((n) => n.metadata?.name)).toEqual(['aks-general-race']);
  });
});
