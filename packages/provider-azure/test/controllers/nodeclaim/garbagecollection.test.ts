// The Azure garbage collection tasks (VMs with their Nodes, NICs) with the in-memory KubeClient:
// over a provider stand-in that records what it was asked, and over the real provider with the
// real @azure/arm-* SDKs against the ARM emulator.
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AZURE_NIC_GC_INTERVAL_SECONDS,
  AZURE_NIC_GC_MESSAGE,
  AZURE_VM_GC_INTERVAL_SECONDS,
  AZURE_VM_GC_MESSAGE,
  azureGarbageCollectionTasks,
  providerIDForVm,
  type AKSNodeClass,
  type AzureCloudProvider,
  type AzureGarbage,
  type AzureGarbageKinds,
} from '../../../src/index.js';
import {
  aksNodeClaim,
  emulatorArmClients,
  emulatorAzureProvider,
  launchableNodeClaim,
} from '../emulator.js';

function claim(name: string): NodeClaim {
  return aksNodeClaim(name);
}

/**
 * A provider whose garbage is every VM and NIC named after a node claim not in the given set;
 * it records the kinds each call asked for.
 */
class FakeAzure {
  readonly calls: { names: string[]; kinds: AzureGarbageKinds }[] = [];
  constructor(private readonly resources: string[]) {}
  async collectGarbage(
    names: ReadonlySet<string>,
    kinds: AzureGarbageKinds,
  ): Promise<AzureGarbage> {
    this.calls.push({ names: [...names].sort(), kinds });
    const leaked = this.resources.filter((r) => !names.has(r.replace(/^aks-/, '')));
    const vms = kinds.virtualMachines === false ? [] : leaked;
    return {
      virtualMachines: vms,
      providerIDs: vms.map(
        (r) =>
          `azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/${r}`,
      ),
      networkInterfaces: kinds.networkInterfaces === false ? [] : leaked,
    };
  }
}

function tasksOf(provider: FakeAzure, client: MemoryKubeClient, logged: object[] = []) {
  const [vms, nics] = azureGarbageCollectionTasks({
    provider,
    client,
    logger: { info: (fields, message) => void logged.push({ fields, message }) },
  });
  if (!vms || !nics) throw new Error('expected a VM task and a NIC task');
  return { vms, nics };
}

describe('Azure garbage collection tasks', () => {
  it('a VM pass and a NIC pass, each handing the provider the NodeClaim names in the cluster and logging what it deleted', async () => {
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    await client.create('NodeClaim', claim('general-a'));
    await client.create('NodeClaim', claim('general-b'));
    const provider = new FakeAzure(['aks-general-a', 'aks-general-gone']);
    const logged: object[] = [];
    const { vms, nics } = tasksOf(provider, client, logged);

    expect(await vms.run()).toMatchObject({
      virtualMachines: ['aks-general-gone'],
      networkInterfaces: [],
      nodes: [],
    });
    expect(await nics.run()).toMatchObject({
      virtualMachines: [],
      networkInterfaces: ['aks-general-gone'],
      nodes: [],
    });
    expect(provider.calls).toEqual([
      { names: ['general-a', 'general-b'], kinds: { networkInterfaces: false } },
      { names: ['general-a', 'general-b'], kinds: { virtualMachines: false } },
    ]);
    expect(logged).toEqual([
      {
        fields: { virtualMachines: ['aks-general-gone'], nodes: [] },
        message: AZURE_VM_GC_MESSAGE,
      },
      { fields: { networkInterfaces: ['aks-general-gone'] }, message: AZURE_NIC_GC_MESSAGE },
    ]);
  });

  it("runs VMs every 2 minutes and NICs every 5 minutes (upstream's periods)", () => {
    const { vms, nics } = tasksOf(
      new FakeAzure([]),
      new MemoryKubeClient({ clock: new ManualClock() }),
    );
    expect([vms.name, nics.name]).toEqual([
      'azure.instance.garbagecollection',
      'azure.networkinterface.garbagecollection',
    ]);
    expect([vms.intervalSeconds, nics.intervalSeconds]).toEqual([120, 300]);
    expect([AZURE_VM_GC_INTERVAL_SECONDS, AZURE_NIC_GC_INTERVAL_SECONDS]).toEqual([120, 300]);
  });

  it('logs nothing when nothing was collected, and a provider error fails the run', async () => {
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    await client.create('NodeClaim', claim('general-a'));
    const logged: object[] = [];
    const quiet = tasksOf(new FakeAzure(['aks-general-a']), client, logged);
    await quiet.vms.run();
    await quiet.nics.run();
    expect(logged).toEqual([]);
    const failing = [
      ...azureGarbageCollectionTasks({
        provider: {
          collectGarbage: () => Promise.reject(new Error('ARM list failed: HTTP 503')),
        },
        client,
        logger: { info: () => {} },
      }),
    ];
    expect(failing).toHaveLength(2);
    for (const task of failing) await expect(task.run()).rejects.toThrow(/HTTP 503/);
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
    // ARM refuses a NIC whose subnet does not exist.
    arm.putSubnet({ id: SUBNET });
    client = new MemoryKubeClient({ clock: new ManualClock() });
    provider = emulatorAzureProvider({
      clients: emulatorArmClients(arm, SUBSCRIPTION),
      subscriptionId: SUBSCRIPTION,
      nodeResourceGroup: NODE_RG,
      clusterName: 'gc-cluster',
      vnetSubnetID: SUBNET,
      getNodeClass: async (name) => (name === 'default' ? nodeClass : undefined),
    });
  });
  afterEach(async () => arm.stop());

  const providerID = (claimName: string) =>
    providerIDForVm(SUBSCRIPTION, NODE_RG, `aks-${claimName}`);

  it('deletes the Nodes of collected VMs (provider IDs compared case-insensitively), keeps VMs inside the grace period and the Nodes of live NodeClaims', async () => {
    const live = await provider.create(launchableNodeClaim('general-live'));
    await client.create('NodeClaim', live);
    for (const name of ['general-gone', 'general-gone2', 'general-young'])
      await provider.create(launchableNodeClaim(name));
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
    const [task] = azureGarbageCollectionTasks({
      provider,
      client,
      logger: { info: (fields) => void logged.push(fields) },
    });

    expect(await task?.run()).toEqual({
      virtualMachines: ['aks-general-gone', 'aks-general-gone2'],
      providerIDs: [providerID('general-gone'), providerID('general-gone2')],
      networkInterfaces: [],
      nodes: ['aks-general-gone', 'aks-general-gone2'],
    });
    expect(logged).toEqual([
      {
        virtualMachines: ['aks-general-gone', 'aks-general-gone2'],
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
    await provider.create(launchableNodeClaim('general-race'));
    await client.create('Node', node('aks-general-race', providerID('general-race')));
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-race', 360);
    const racing = {
      collectGarbage: async (names: ReadonlySet<string>, kinds: AzureGarbageKinds) => {
        const out = await provider.collectGarbage(names, kinds);
        const adopter = claim('general-race');
        adopter.status = { providerID: providerID('general-race'), nodeName: 'aks-general-race' };
        await client.create('NodeClaim', adopter);
        return out;
      },
    };
    const [task] = azureGarbageCollectionTasks({
      provider: racing,
      client,
      logger: { info: () => {} },
    });
    expect(await task?.run()).toMatchObject({
      virtualMachines: ['aks-general-race'],
      nodes: [],
    });
    expect((await client.list('Node')).map((n) => n.metadata?.name)).toEqual(['aks-general-race']);
  });
});
