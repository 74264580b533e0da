/**
 * `--provider azure` garbage collection on the real control plane: what a cluster accumulates
 * while no controller runs is cleaned up by the Azure GC's first passes at start (upstream's
 * instance GC runs at start, then every 2 min; its NIC GC at start, then every 5 min), and by
 * them alone: the controller reports that the core garbage collection leaves orphan instances
 * to the provider (`collectOrphanInstances: false`). Before the controller starts, the ARM emulator
 * holds, all launched by an in-process provider exactly as a controller would have:
 * (a) a VM + NIC + OS disk of this cluster whose NodeClaim does not exist, created 10 minutes
 *     ago, with its Node registered (termination finalizer on, as Karpenter leaves it);
 * (b) the same created 1 minute ago: inside the 5-minute grace, so it and its Node stay;
 * (c) a NIC of this cluster with no VM and no NodeClaim (a launch that died after the NIC);
 * (d) a VM of ANOTHER cluster, 10 minutes old: never this controller's to delete.
 * Then the crash case: the controller is SIGKILLed while VM PUTs are in flight, the NodeClaims
 * are force-deleted (finalizers removed) and the workload is removed while it is down, the VMs
 * come up and register Nodes and age past the grace; after a restart nothing of theirs is left.
 * VM ages are moved with the emulator's `backdateVirtualMachine` test control instead of waiting.
 * The controller runs as a child process (test/e2e/process) with a managed identity token
 * endpoint served by azure-harness.ts, as in azure-crash.e2e.ts.
 */
import { SeedImageVersions, type ArmEmulator } from '@karpenter-ts/arm-emulator';
import type { NodeClaim } from '@karpenter-ts/api';
import { isNotFound } from '@karpenter-ts/controllers';
import type { KubeConnection } from '@karpenter-ts/kube';
import {
  AzureCloudProvider,
  allAzureSkus,
  launchTags,
  networkInterfaceBody,
  type AKSNodeClass,
} from '@karpenter-ts/provider-azure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AzureHarness,
  clusterEndpoint,
  KUBELET_BOOTSTRAP_TOKEN,
  nodeClassSpec,
  SSH_PUBLIC_KEY,
} from './azure-harness.js';
import type { EmulatedKubelets } from './azure-kubelet.js';
import {
  startController,
  type ControllerProcess,
  type LogLine,
} from './process/controller-process.js';
import { eventually, Workload, type List, type NodeObject } from './support.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000e4';
const NODE_RG = 'MC_rg_e2e-gc_southcentralus';
const REGION = 'southcentralus';
const CLUSTER = 'e2e-gc';
const NAME = 'azure-gc';
const VMS_COLLECTED = 'garbage collected Azure VMs without a NodeClaim';
const NICS_COLLECTED = 'garbage collected Azure NICs without a VM or NodeClaim';

let harness: AzureHarness;
let api: KubeConnection;
let arm: ArmEmulator;
let kubelets: EmulatedKubelets;
/** While false, booted VMs register no Node (the seeded Nodes are written by the test). */
let kubeletsOn = false;
let workload: Workload;
let controller: ControllerProcess | undefined;

async function nodeNames(): Promise<string[]> {
  return (await api.request<List<NodeObject>>('GET', '/api/v1/nodes')).items
    .map((n) => n.metadata.name)
    .sort();
}

/** The in-process provider a controller of `clusterName` would be, to leave resources behind. */
function seedingProvider(clusterName: string, nodeClass: AKSNodeClass): AzureCloudProvider {
  return new AzureCloudProvider({
    clients: harness.armClients(),
    subscriptionId: SUBSCRIPTION,
    location: REGION,
    nodeResourceGroup: NODE_RG,
    clusterName,
    clusterEndpoint: clusterEndpoint(clusterName, REGION),
    kubeletBootstrapToken: KUBELET_BOOTSTRAP_TOKEN,
    sshPublicKey: SSH_PUBLIC_KEY,
    vnetSubnetID: harness.subnetId,
    getNodeClass: async () => nodeClass,
    skus: allAzureSkus().filter((s) => s.name === 'Standard_D2s_v3'),
    pollIntervalMs: 20,
  });
}

/** A NodeClaim of the pool that is never written to the cluster (only launched). */
function phantomClaim(name: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': NAME } },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: NAME },
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['Standard_D2s_v3'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
      resources: { requests: { cpu: '1' } },
    },
  };
}

/** Registers the Node a kubelet on the VM would have, with Karpenter's termination finalizer. */
async function registerNode(vmName: string, finalizer: boolean): Promise<void> {
  const vm = arm.state.virtualMachines(NODE_RG).find((v) => v.name === vmName);
  if (!vm) throw new Error(`no VM ${vmName}`);
  await api.request('POST', '/api/v1/nodes', {
    body: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: vmName,
        labels: { 'karpenter.sh/nodepool': NAME, 'kubernetes.io/hostname': vmName },
        ...(finalizer ? { finalizers: ['karpenter.sh/termination'] } : {}),
      },
      // The ARM ID as ARM spells it (resource group in its original case): the controller's
      // provider IDs lower-case it, so only a case-insensitive match finds this Node.
      spec: { providerID: `azure://${vm.id}` },
    },
  });
}

/** Removes a Node's finalizers and deletes it (clean-up). */
async function forceDeleteNode(name: string): Promise<void> {
  const ignore = (err: unknown) => {
    if (!isNotFound(err)) throw err;
  };
  await api
    .request('PATCH', `/api/v1/nodes/${name}`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    })
    .catch(ignore);
  await api.request('DELETE', `/api/v1/nodes/${name}`).catch(ignore);
}

const isVmsCollectedLog = (l: LogLine) => l.message === VMS_COLLECTED;
const isNicsCollectedLog = (l: LogLine) => l.message === NICS_COLLECTED;
const isStartedLog = (l: LogLine) => l.message === 'controllers started';

beforeAll(async () => {
  harness = await AzureHarness.start({
    subscription: SUBSCRIPTION,
    nodeResourceGroup: NODE_RG,
    region: REGION,
    clusterName: CLUSTER,
    managedIdentity: true,
    registerNodes: () => kubeletsOn,
  });
  ({ api, arm, kubelets } = harness);
  workload = new Workload(api, NAME, 3);
  // Two-core sizes: one one-core pod per node, so several VM PUTs are in flight.
  await harness.createNodePool(NAME, ['Standard_D2s_v3', 'Standard_D2_v5'], ['on-demand']);

  // What a controller leaves behind, launched from a Gen2 Ubuntu image the emulator's community
  // gallery holds (its newest seeded version).
  const version = SeedImageVersions[SeedImageVersions.length - 1]?.version ?? '';
  const images = [
    {
      id: `/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2404gen2containerd/versions/${version}`,
      requirements: [
        { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64'] },
        {
          key: 'karpenter.azure.com/sku-hyperv-generation',
          operator: 'In' as const,
          values: ['2'],
        },
      ],
    },
  ];
  const nodeClass: AKSNodeClass = {
    apiVersion: 'karpenter.azure.com/v1beta1',
    kind: 'AKSNodeClass',
    metadata: { name: NAME },
    spec: nodeClassSpec,
    status: {
      kubernetesVersion: '1.36.3',
      images,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
    },
  };
  const ours = seedingProvider(CLUSTER, nodeClass);
  await ours.create(phantomClaim('gc-old')); // (a)
  await ours.create(phantomClaim('gc-young')); // (b)
  await seedingProvider('e2e-other', nodeClass).create(phantomClaim('gc-foreign')); // (d)
  await harness.armClients().network.networkInterfaces.beginCreateOrUpdateAndWait(
    NODE_RG,
    'aks-gc-orphan',
    networkInterfaceBody({
      name: 'aks-gc-orphan',
      location: REGION,
      subnetID: harness.subnetId,
      acceleratedNetworking: true,
      tags: launchTags({ clusterName: CLUSTER, nodePool: NAME, nodeClaim: 'gc-orphan' }),
    }),
    { updateIntervalInMs: 20 },
  ); // (c)
  arm.state.backdateVirtualMachine(NODE_RG, 'aks-gc-old', 600);
  arm.state.backdateVirtualMachine(NODE_RG, 'aks-gc-young', 60);
  arm.state.backdateVirtualMachine(NODE_RG, 'aks-gc-foreign', 600);
  await registerNode('aks-gc-old', true);
  await registerNode('aks-gc-young', false);
  kubeletsOn = true;
});

afterAll(async () => {
  const ignore = () => {};
  try {
    await controller?.stop();
  } finally {
    await api
      ?.request('DELETE', `/apis/apps/v1/namespaces/${NAME}/deployments/${NAME}`)
      .catch(ignore);
    for (const nc of (await workload?.nodeClaims().catch(() => [])) ?? []) {
      await api
        ?.request('PATCH', `/apis/karpenter.sh/v1/nodeclaims/${nc.metadata.name}`, {
          body: { metadata: { finalizers: null } },
          contentType: 'application/merge-patch+json',
        })
        .catch(ignore);
      await api
        ?.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${nc.metadata.name}`)
        .catch(ignore);
    }
    for (const name of (await nodeNames().catch(() => [])).filter((n) => n.startsWith('aks-')))
      await forceDeleteNode(name).catch(ignore);
    await harness?.deleteNodePool(NAME);
    await harness?.stop();
  }
});

describe('Azure garbage collection (--provider azure)', () => {
  it("at start collects the old VM without a NodeClaim (with NIC, disk and Node) and the orphan NIC; spares the young VM and another cluster's", async () => {
    expect(harness.armNames()).toEqual({
      vms: ['aks-gc-foreign', 'aks-gc-old', 'aks-gc-young'],
      nics: ['aks-gc-foreign', 'aks-gc-old', 'aks-gc-orphan', 'aks-gc-young'],
      disks: ['aks-gc-foreign', 'aks-gc-old', 'aks-gc-young'],
    });
    controller = await startController('azure-gc-first', harness.controllerArgs(), harness.env);
    // Orphan VMs have one owner, the Azure GC: the core pass only deletes NodeClaims.
    const started = await controller.waitForLog('controllers started', isStartedLog, 60_000);
    expect(started['collectOrphanInstances']).toBe(false);
    const vmLine = await controller.waitForLog('VMs collected', isVmsCollectedLog, 60_000);
    expect(vmLine).toMatchObject({ virtualMachines: ['aks-gc-old'], nodes: ['aks-gc-old'] });
    const nicLine = await controller.waitForLog('NICs collected', isNicsCollectedLog, 60_000);
    expect(nicLine).toMatchObject({ networkInterfaces: ['aks-gc-orphan'] });
    expect(harness.armNames()).toEqual({
      vms: ['aks-gc-foreign', 'aks-gc-young'],
      nics: ['aks-gc-foreign', 'aks-gc-young'],
      disks: ['aks-gc-foreign', 'aks-gc-young'],
    });
    // The Node was marked deleting; the termination controller finds its VM gone and releases
    // the finalizer.
    await eventually(
      'the Node of the collected VM to be gone',
      async () => !(await nodeNames()).includes('aks-gc-old'),
      60_000,
    );
    expect(await nodeNames()).toContain('aks-gc-young');
  });

  it('after a crash mid-launch, NodeClaims force-deleted and VMs aged while it was down: a restart leaves nothing behind', async () => {
    // Every VM create stays InProgress while the controller polls: the window to kill in.
    arm.faults.slow({ resourceType: 'virtualMachines', method: 'PUT' }, 1000);
    await workload.poolReady();
    await workload.deploy();
    const claims = await eventually(
      'a VM PUT in flight for every node claim',
      async () => {
        const claims = await workload.nodeClaims();
        const { vms } = harness.armNames();
        return claims.length > 0 && claims.every((c) => vms.includes(`aks-${c.metadata.name}`))
          ? claims
          : false;
      },
      60_000,
    );
    await controller?.crash();
    controller = undefined;
    arm.faults.clear();
    const leaked = claims.map((c) => `aks-${c.metadata.name}`).sort();

    // While it is down: ARM finishes the VMs (their kubelets register Nodes), the workload goes,
    // an operator force-deletes the NodeClaims, and the VMs age past the grace period.
    await harness.finishOperations();
    await eventually(
      'the Nodes of the leaked VMs to register',
      async () => leaked.every((n) => kubelets.nodes.has(n)),
      30_000,
    );
    await api.request('DELETE', `/apis/apps/v1/namespaces/${NAME}/deployments/${NAME}`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
    });
    await eventually('the pods to go', async () => (await workload.pods()).length === 0, 60_000);
    for (const c of claims) {
      await api.request('PATCH', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`, {
        body: { metadata: { finalizers: null } },
        contentType: 'application/merge-patch+json',
      });
      await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`);
    }
    expect(await workload.nodeClaims()).toEqual([]);
    for (const vm of leaked) arm.state.backdateVirtualMachine(NODE_RG, vm, 600);
    expect(harness.armNames().vms).toEqual(['aks-gc-foreign', 'aks-gc-young', ...leaked].sort());

    controller = await startController('azure-gc-restarted', harness.controllerArgs(), harness.env);
    const line = await controller.waitForLog('VMs collected', isVmsCollectedLog, 60_000);
    expect(line['virtualMachines']).toEqual(leaked);
    await eventually(
      'the leaked VMs, NICs, disks and Nodes to be gone',
      async () => {
        const names = await nodeNames();
        return leaked.every((n) => !names.includes(n));
      },
      60_000,
    );
    const survivors = {
      vms: ['aks-gc-foreign', 'aks-gc-young'],
      nics: ['aks-gc-foreign', 'aks-gc-young'],
      disks: ['aks-gc-foreign', 'aks-gc-young'],
    };
    expect(harness.armNames()).toEqual(survivors);
    expect(await workload.nodeClaims()).toEqual([]);
    expect(await nodeNames()).toContain('aks-gc-young');
    // The young VM is unowned too, but only the Azure GC collects orphans, after 5 minutes; the
    // leaked VMs' NICs went with their VMs, so the NIC pass found nothing.
    expect(
      (await controller.waitForLog('controllers started', isStartedLog, 5_000))[
        'collectOrphanInstances'
      ],
    ).toBe(false);
    expect(controller.logs.filter(isVmsCollectedLog)).toHaveLength(1);
    expect(controller.logs.filter(isNicsCollectedLog)).toHaveLength(0);
  });
});
