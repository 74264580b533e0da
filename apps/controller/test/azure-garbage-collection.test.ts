// The Azure garbage collection as the operator runs it: the manager's periodic task runner on
// the provider package's tasks, and the azure wiring's split with the core garbage collection
// (the tasks themselves are specified in packages/provider-azure/test/controllers/nodeclaim).
import { startArmEmulator, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import { ManualClock, MemoryKubeClient, systemClock } from '@karpenter-ts/controllers';
import type { Node, NodeClaim } from '@karpenter-ts/api';
import {
  AZURE_NIC_GC_INTERVAL_SECONDS,
  AZURE_VM_GC_INTERVAL_SECONDS,
  type AzureCloudProvider,
  allAzureSkus,
  azureGarbageCollectionTasks,
  providerIDForVm,
  type AKSNodeClass,
  type AzureGarbage,
  type AzureGarbageKinds,
} from '@karpenter-ts/provider-azure';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Manager, OperatorMetrics } from '../src/index.js';
import { wireAzureProvider } from '../src/providers/azure-provider.js';
import type { AzureSettings } from '../src/providers/azure-settings.js';
import { startPeriodicTasks } from '../src/runtime/periodic-tasks.js';
import {
  EMULATOR_VM_SIZE,
  emulatorArmClients,
  emulatorAzureProvider,
  launchableNodeClaim,
  staticTokenCredential,
} from './support/azure-emulator.js';
import { nodeClaim } from './support/node-claim.js';

function claim(name: string): NodeClaim {
  return nodeClaim(name, {
    nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
  });
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

describe('Azure garbage collection under the periodic task runner', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("checks VMs at start and every 2 minutes and NICs at start and every 5 minutes (upstream's periods)", async () => {
    vi.useFakeTimers();
    const client = new MemoryKubeClient({ clock: new ManualClock() });
    const provider = new FakeAzure([]);
    const { vms, nics } = tasksOf(provider, client);
    expect([vms.intervalSeconds, nics.intervalSeconds]).toEqual([120, 300]);
    expect([AZURE_VM_GC_INTERVAL_SECONDS, AZURE_NIC_GC_INTERVAL_SECONDS]).toEqual([120, 300]);
    const passes = () => ({
      vm: provider.calls.filter((c) => c.kinds.networkInterfaces === false).length,
      nic: provider.calls.filter((c) => c.kinds.virtualMachines === false).length,
    });
    const failures: string[] = [];
    const stop = startPeriodicTasks([vms, nics], {
      child: () => ({ error: (_fields, message) => void failures.push(message) }),
    });
    try {
      await vi.advanceTimersByTimeAsync(0);
      expect(passes()).toEqual({ vm: 1, nic: 1 });
      await vi.advanceTimersByTimeAsync(240_000); // 4 min
      expect(passes()).toEqual({ vm: 3, nic: 1 });
      await vi.advanceTimersByTimeAsync(60_000); // 5 min
      expect(passes()).toEqual({ vm: 3, nic: 2 });
      await vi.advanceTimersByTimeAsync(300_000); // 10 min
      expect(passes()).toEqual({ vm: 6, nic: 3 });
      expect(failures).toEqual([]);
    } finally {
      stop();
    }
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

describe('Azure garbage collection wired by the operator', () => {
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

  it('under the azure wiring the core garbage collection leaves a VM without a NodeClaim to the Azure GC, and still deletes a NodeClaim whose VM is gone', async () => {
    await provider.create(launchableNodeClaim('general-orphan'));
    arm.state.backdateVirtualMachine(NODE_RG, 'aks-general-orphan', 600);
    // Registered, its VM gone, its Node not Ready: upstream's core GC deletes it.
    const lost = claim('general-lost');
    lost.status = {
      providerID: providerID('general-lost'),
      nodeName: 'aks-general-lost',
      conditions: [
        {
          type: 'Registered',
          status: 'True',
          reason: 'Registered',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    await client.create('NodeClaim', lost);
    await client.create('Node', {
      ...node('aks-general-lost', providerID('general-lost')),
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    } as Node);

    const wired = wireAzureProvider({
      settings: wiringSettings(arm),
      clusterName: 'gc-cluster',
      client,
      request: () => Promise.reject(new Error('no API server in this test')),
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      userAgent: 'karpenter-ts-test',
      credential: staticTokenCredential,
      skus: allAzureSkus().filter((s) => s.name === EMULATOR_VM_SIZE),
      pollIntervalMs: 5,
    });
    const clock = new ManualClock();
    const manager = new Manager({
      client,
      cloudProvider: wired.cloudProvider,
      clock,
      logger: pino({ level: 'silent' }),
      metrics: new OperatorMetrics({ version: 'test', commit: 'test' }),
      periodic: wired.periodic,
      garbageCollection: wired.garbageCollection,
    });
    const gc = manager.garbageCollection;
    expect(gc.collectsOrphanInstances).toBe(false);
    const first = await gc.reconcile();
    clock.advance(3600); // far past both the core grace (30 s) and Azure's (300 s)
    const second = await gc.reconcile();
    expect(first.nodeClaimsDeleted).toEqual(['general-lost']);
    expect([...first.instancesDeleted, ...second.instancesDeleted]).toEqual([]);
    expect(arm.state.virtualMachines().map((v) => v.name)).toEqual(['aks-general-orphan']);

    // The Azure VM garbage collection the wiring runs is what collects it.
    const vmTask = wired.periodic.find((t) => t.name === 'azure.instance.garbagecollection');
    expect(await vmTask?.run()).toMatchObject({ virtualMachines: ['aks-general-orphan'] });
    expect(arm.state.virtualMachines()).toEqual([]);
  });
});

/** Settings of the `gc-cluster` the emulator tests launch into, with ARM at the emulator. */
function wiringSettings(arm: ArmEmulator): AzureSettings {
  return {
    subscriptionId: SUBSCRIPTION,
    location: 'southcentralus',
    nodeResourceGroup: NODE_RG,
    vnetSubnetID: SUBNET,
    clusterEndpoint: 'https://gc-cluster.hcp.southcentralus.azmk8s.io:443',
    kubeletBootstrapToken: 'abcdef.0123456789abcdef',
    sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE test',
    nodeIdentities: [],
    armEndpoint: arm.url,
    ...(arm.ca ? { armCA: arm.ca } : {}),
    credential: { mode: 'managed-identity' },
  };
}
