/**
 * `--provider azure` end to end: the operator (in-process) lists the region's VM sizes from the
 * emulator's Resource SKUs API at start and launches VMs through the real Azure
 * SDKs against the ARM emulator (in-process, HTTPS with its throw-away CA in `ARM_CA_FILE`);
 * every booted VM's emulated kubelet registers its Node in the real control plane, the real
 * kube-scheduler binds the pods; scaling to zero and deleting the node claims leaves no VM, NIC
 * or disk. Then a capacity error for the cheapest size in one zone makes a launch fall back, and
 * the unavailable-offerings cache holds the entry. Node images are the emulator's community
 * gallery versions with the newest publishedDate (no AKS_NODE_IMAGE_VERSION pin). Last, an
 * AKSNodeClass naming a subnet ARM does not hold is not Ready (`SubnetNotFound`) and its NodePool
 * launches nothing for its pending pods.
 */
import type { ArmEmulator } from '@karpenter-ts/arm-emulator';
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import type { KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  parseOptions,
  startOperator,
  type RunningOperator,
} from '../../src/index.js';
import { nodeClaim } from '../support/node-claim.js';
import { AzureHarness, fixedTokenCredential, nodeClassSpec } from './azure-harness.js';
import type { EmulatedKubelets } from './azure-kubelet.js';
import { eventually, logSink, Workload, type List, type NodeObject } from './support.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000e2';
const NODE_RG = 'MC_rg_e2e_southcentralus';
const REGION = 'southcentralus';
const CLUSTER = 'e2e';
const SIZES = ['Standard_D2s_v3', 'Standard_D4s_v3', 'Standard_D2_v5'];
const UBUNTU_GALLERY = 'AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2';
/** Ubuntu 24.04 (Kubernetes 1.36): Gen2, Gen1, arm64. */
const DEFINITIONS = ['2404gen2containerd', '2404containerd', '2404gen2arm64containerd'];
/** Published after the emulator's seeded versions: the one every VM must boot. */
const NEWEST = '202509.02.0';

let harness: AzureHarness;
let api: KubeConnection;
let arm: ArmEmulator;
let kubelets: EmulatedKubelets;
let operator: RunningOperator;
const logLines: string[] = [];

interface ArmVm {
  name: string;
  zones?: string[];
  tags?: Record<string, string>;
  properties: {
    hardwareProfile?: { vmSize?: string };
    priority?: string;
    evictionPolicy?: string;
    storageProfile?: {
      imageReference?: { communityGalleryImageId?: string };
      osDisk?: { managedDisk?: { diskEncryptionSet?: { id?: string } } };
    };
  };
}

beforeAll(async () => {
  harness = await AzureHarness.start({
    subscription: SUBSCRIPTION,
    nodeResourceGroup: NODE_RG,
    region: REGION,
    clusterName: CLUSTER,
    managedIdentity: false,
    diskEncryptionSet: true,
  });
  ({ api, arm, kubelets } = harness);
  for (const image of DEFINITIONS) {
    const gallery = UBUNTU_GALLERY;
    arm.publishImageVersion({
      gallery,
      image,
      version: NEWEST,
      publishedDate: '2025-09-02T00:00:00Z',
    });
    // Decoys: the greatest name but published earlier, and a later one excluded from latest.
    arm.publishImageVersion({
      gallery,
      image,
      version: '202599.01.0',
      publishedDate: '2024-12-01T00:00:00Z',
    });
    arm.publishImageVersion({
      gallery,
      image,
      version: '202509.03.0',
      publishedDate: '2025-09-03T00:00:00Z',
      excludeFromLatest: true,
    });
  }
  const parsed = parseOptions(
    [
      '--kubeconfig',
      harness.kubeconfig,
      '--provider',
      'azure',
      '--cluster-name',
      CLUSTER,
      '--leader-election-namespace',
      'default',
      '--leader-election-name',
      'karpenter-azure-e2e',
      '--metrics-port',
      '0',
      '--health-probe-port',
      '0',
    ],
    {},
  );
  if (parsed.kind !== 'run') throw new Error(parsed.output);
  const stream = logSink(logLines);
  operator = await startOperator(parsed.options, {
    version: 'e2e',
    handleSignals: false,
    logger: createLogger({ level: 'info', outputPaths: ['stdout'], commit: 'e2e', stream }),
    env: harness.env,
    azure: { credential: fixedTokenCredential, pollIntervalMs: 100 },
  });
});

afterAll(async () => {
  // Leave the cluster as the next suite expects it: no NodePool another provider cannot serve.
  await harness?.deleteNodePool('azure');
  await harness?.deleteNodePool('nosubnet');
  await harness?.deleteNodePool('noreader');
  await operator?.shutdown('end of test');
  await harness?.stop();
});

describe('karpenter-ts-controller --provider azure against the ARM emulator', () => {
  it('refreshes the VM sizes of its region from ARM at start and logs it', async () => {
    const line = await eventually(
      'the VM size refresh to be logged',
      async () =>
        logLines
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l['message'] === 'refreshed VM sizes'),
      30_000,
    );
    const sold = arm.skus.list(REGION).length;
    expect(line).toMatchObject({ region: REGION, sizes: sold });
    expect(operator.azure?.skus).toHaveLength(sold);
    const [list] = arm.state.requestsTo('GET', '/providers/Microsoft.Compute/skus');
    expect(new URL(list?.url ?? '', arm.url).searchParams.get('$filter')).toBe(
      `location eq '${REGION}'`,
    );
  });

  it('marks the AKSNodeClass Ready with the API server version and the newest gallery images', async () => {
    await harness.createNodePool('azure', SIZES, ['spot', 'on-demand']);
    const nc = await eventually(
      'the AKSNodeClass to be Ready',
      async () => {
        const o = await api.request<{
          status?: {
            kubernetesVersion?: string;
            images?: { id: string }[];
            conditions?: { type: string; status: string }[];
          };
        }>('GET', '/apis/karpenter.azure.com/v1beta1/aksnodeclasses/azure');
        return o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? o
          : undefined;
      },
      30_000,
    );
    expect(nc.status?.kubernetesVersion).toMatch(/^1\.36\.\d+$/);
    // Ubuntu from Kubernetes 1.34 is Ubuntu 24.04, Gen2 first; each at its newest version.
    expect(nc.status?.images?.map((i) => i.id)).toEqual(
      DEFINITIONS.map(
        (d) => `/CommunityGalleries/${UBUNTU_GALLERY}/images/${d}/versions/${NEWEST}`,
      ),
    );
    for (const type of [
      'KubernetesVersionReady',
      'ImagesReady',
      'SubnetsReady',
      'ValidationSucceeded',
      'LocalDNSReady',
    ])
      expect(nc.status?.conditions?.find((c) => c.type === type)?.status, type).toBe('True');
    // The disk encryption set (NODE_OSDISK_DISKENCRYPTIONSET_ID) was read with the controller's identity.
    expect(nc.status?.conditions?.find((c) => c.type === 'ValidationSucceeded')).toMatchObject({
      message: `disk encryption set ${harness.diskEncryptionSetId} is readable`,
    });
    expect(arm.state.requestsTo('GET', '/diskEncryptionSets/nodes-des').length).toBeGreaterThan(0);
    // The cluster subnet (VNET_SUBNET_ID) was looked up in ARM.
    expect(
      arm.state.requestsTo('GET', '/virtualNetworks/vnet/subnets/nodes').length,
    ).toBeGreaterThanOrEqual(1);
    // Listed through the SDK, not pinned.
    expect(arm.state.requestsTo('GET', '/communityGalleries/').length).toBeGreaterThanOrEqual(3);
  });

  it('launches spot VMs of the pool sizes; their nodes register and every pod is bound', async () => {
    const w = new Workload(api, 'azure', 8);
    await w.poolReady();
    await w.deploy();
    const pods = await w.allPodsBound(45_000);
    const claims = await eventually(
      'every node claim to be registered',
      async () => {
        const list = await w.nodeClaims();
        return list.length > 0 &&
          list.every((c) =>
            c.status?.conditions?.some((x) => x.type === 'Registered' && x.status === 'True'),
          )
          ? list
          : undefined;
      },
      30_000,
    );
    const nodes = await w.nodes();
    const vms = arm.state.virtualMachines(NODE_RG) as unknown as ArmVm[];
    expect(vms).toHaveLength(claims.length);
    expect(nodes).toHaveLength(claims.length);
    expect(arm.state.bootErrors).toEqual([]);
    for (const claim of claims) {
      const labels = claim.metadata.labels ?? {};
      const vm = vms.find((v) => v.tags?.['karpenter.sh_nodeclaim'] === claim.metadata.name);
      expect(vm, `VM of ${claim.metadata.name}`).toBeDefined();
      expect(SIZES).toContain(vm?.properties.hardwareProfile?.vmSize);
      // These sizes run Gen2: the Gen2 image at the newest published version.
      expect(vm?.properties.storageProfile?.imageReference?.communityGalleryImageId).toBe(
        `/CommunityGalleries/${UBUNTU_GALLERY}/images/2404gen2containerd/versions/${NEWEST}`,
      );
      expect(labels['node.kubernetes.io/instance-type']).toBe(
        vm?.properties.hardwareProfile?.vmSize,
      );
      // Spot is allowed and priced like on-demand in the shipped table, so spot wins the tie.
      expect(labels['karpenter.sh/capacity-type']).toBe('spot');
      expect(vm?.properties.priority).toBe('Spot');
      expect(vm?.properties.evictionPolicy).toBe('Delete');
      // NODE_OSDISK_DISKENCRYPTIONSET_ID on every OS disk.
      expect(vm?.properties.storageProfile?.osDisk?.managedDisk?.diskEncryptionSet?.id).toBe(
        harness.diskEncryptionSetId,
      );
      const zone = labels['topology.kubernetes.io/zone'] ?? '';
      expect(vm?.zones?.[0] === undefined ? '0' : `${REGION}-${vm.zones[0]}`).toBe(zone);
      const node = nodes.find((n) => n.spec?.providerID === claim.status?.providerID);
      expect(node?.metadata.name).toBe(claim.status?.nodeName);
      expect(node?.metadata.labels?.['topology.kubernetes.io/zone']).toBe(zone);
    }
    const nodeNames = new Set(nodes.map((n) => n.metadata.name));
    expect(pods.every((p) => nodeNames.has(p.spec?.nodeName ?? ''))).toBe(true);
    console.info(
      `${pods.length} pods on ${vms.length} VMs: ${vms.map((v) => `${v.properties.hardwareProfile?.vmSize}/${v.zones?.[0] ?? '-'}/${v.properties.priority}`).join(', ')}`,
    );
  });

  it('deletes the VMs, NICs and OS disks when the pods go and the node claims are deleted', async () => {
    await api.request('PATCH', '/apis/apps/v1/namespaces/azure/deployments/azure', {
      body: { spec: { replicas: 0 } },
      contentType: 'application/merge-patch+json',
    });
    const w = new Workload(api, 'azure', 0);
    await eventually('the pods to go', async () => (await w.pods()).length === 0, 30_000);
    for (const c of await w.nodeClaims())
      await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`);
    await eventually(
      'node claims, nodes, node leases, VMs, NICs and disks to vanish',
      async () =>
        (await w.nodeClaims()).length +
          (await w.nodes()).length +
          arm.state.virtualMachines().length +
          arm.state.networkInterfaces().length +
          arm.state.disks().length +
          (
            await api.request<List<NodeObject>>(
              'GET',
              '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
            )
          ).items.filter((l) => l.metadata.name.startsWith('aks-')).length ===
        0,
      30_000,
    );
    expect(kubelets.nodes.size).toBe(0);
    expect(kubelets.errors).toEqual([]);
  });

  it('falls back from a size and zone out of capacity and caches the unavailable offering', async () => {
    // A node claim for one zone: the first launch shows the cheapest size there; with that size
    // out of capacity in that zone the same claim must land on another size.
    const cheapest = await launchOne('probe', '1');
    const [size, zone] = cheapest;
    await removeClaim('probe');
    arm.faults.capacity('ZonalAllocationFailed', { vmSize: size, zone });
    const [size2, zone2] = await launchOne('fallback', '1');
    expect(zone2).toBe(zone);
    expect(size2).not.toBe(size);
    // ZonalAllocationFailed blocks the size in that zone for that capacity type.
    const entry = (operator.azure?.unavailableOfferings.entries() ?? []).find(
      (e) => 'sku' in e.scope && e.scope.sku === size,
    );
    expect(entry, JSON.stringify(operator.azure?.unavailableOfferings.entries())).toMatchObject({
      zone: `${REGION}-${zone}`,
      capacityType: '*',
    });
    // The failed attempt is visible in ARM: two PUTs of the node claim's VM, the first one
    // accepted and failed late, then deleted before the fallback.
    const vmPuts = arm.state.requestsTo('PUT', '/virtualMachines/aks-fallback');
    expect(vmPuts.length).toBe(2);
    expect(arm.state.requestsTo('DELETE', '/virtualMachines/aks-fallback').length).toBe(1);
    await removeClaim('fallback');
  });

  it('an AKSNodeClass whose subnet does not exist is Ready=False (SubnetNotFound) and its NodePool launches no VM', async () => {
    const missing = harness.subnetId.replace(/\/subnets\/nodes$/, '/subnets/missing');
    await harness.createNodePool('nosubnet', SIZES, ['on-demand'], {
      ...nodeClassSpec,
      vnetSubnetID: missing,
    });
    type Conditions = {
      status?: {
        conditions?: { type: string; status: string; reason?: string; message?: string }[];
      };
    };
    const nc = await eventually(
      'the AKSNodeClass to report SubnetNotFound',
      async () => {
        const o = await api.request<Conditions>(
          'GET',
          '/apis/karpenter.azure.com/v1beta1/aksnodeclasses/nosubnet',
        );
        return o.status?.conditions?.some(
          (c) => c.type === 'SubnetsReady' && c.reason === 'SubnetNotFound',
        )
          ? o
          : undefined;
      },
      30_000,
    );
    const notFound = {
      status: 'False',
      reason: 'SubnetNotFound',
      message: `subnet ${missing} not found`,
    };
    expect(nc.status?.conditions?.find((c) => c.type === 'SubnetsReady')).toMatchObject(notFound);
    expect(nc.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject(notFound);
    expect(nc.status?.conditions?.find((c) => c.type === 'ImagesReady')?.status).toBe('True');
    await eventually(
      'the NodePool to follow its NodeClass (NodeClassReady False)',
      async () =>
        (
          await api.request<NodePool>('GET', '/apis/karpenter.sh/v1/nodepools/nosubnet')
        ).status?.conditions?.some(
          (c) =>
            c.type === 'NodeClassReady' && c.status === 'False' && c.reason === 'SubnetNotFound',
        ),
      30_000,
    );

    // Pods only this pool could serve: the provisioner considers them and says it cannot.
    const w = new Workload(api, 'nosubnet', 2);
    await eventually(
      'the default service account',
      () => api.request('GET', '/api/v1/namespaces/nosubnet/serviceaccounts/default'),
      30_000,
    );
    await w.deploy();
    // Karpenter's own event (kube-scheduler's FailedScheduling reads "0/N nodes are available").
    await eventually(
      "Karpenter's FailedScheduling event for a pending pod of the pool",
      async () =>
        (
          await api.request<List<{ involvedObject?: { kind?: string }; message?: string }>>(
            'GET',
            '/api/v1/namespaces/nosubnet/events?fieldSelector=reason%3DFailedScheduling',
          )
        ).items.find(
          (e) =>
            e.involvedObject?.kind === 'Pod' && e.message?.startsWith('Failed to schedule pod'),
        ),
      30_000,
    );
    expect(await w.nodeClaims()).toEqual([]);
    expect((await w.pods()).every((p) => !p.spec?.nodeName)).toBe(true);
    expect(arm.state.requestsTo('PUT', '/virtualMachines/aks-nosubnet')).toEqual([]);
    expect(arm.state.requestsTo('PUT', '/networkInterfaces/aks-nosubnet')).toEqual([]);
    expect(arm.state.virtualMachines(NODE_RG)).toEqual([]);
    await harness.deleteNodePool('nosubnet');
  });

  it('without Reader on the disk encryption set an AKSNodeClass is Ready=False (DiskEncryptionSetRBACMissing) and its NodePool follows', async () => {
    // Last: the set is operator-wide, so every AKSNodeClass checked from now on is not ready.
    arm.faults.authorizationFailed(
      { resourceType: 'diskEncryptionSets', method: 'GET' },
      { action: 'Microsoft.Compute/diskEncryptionSets/read', scope: harness.diskEncryptionSetId },
    );
    await harness.createNodePool('noreader', SIZES, ['on-demand']);
    type Conditions = {
      status?: {
        conditions?: { type: string; status: string; reason?: string; message?: string }[];
      };
    };
    const nc = await eventually(
      'the AKSNodeClass to report DiskEncryptionSetRBACMissing',
      async () => {
        const o = await api.request<Conditions>(
          'GET',
          '/apis/karpenter.azure.com/v1beta1/aksnodeclasses/noreader',
        );
        return o.status?.conditions?.some(
          (c) => c.type === 'Ready' && c.reason === 'DiskEncryptionSetRBACMissing',
        )
          ? o
          : undefined;
      },
      30_000,
    );
    expect(nc.status?.conditions?.find((c) => c.type === 'ValidationSucceeded')).toMatchObject({
      status: 'False',
      reason: 'DiskEncryptionSetRBACMissing',
      message: expect.stringContaining(
        `no Reader role on disk encryption set ${harness.diskEncryptionSetId}`,
      ),
    });
    await eventually(
      'the NodePool to follow its NodeClass (NodeClassReady False)',
      async () =>
        (
          await api.request<NodePool>('GET', '/apis/karpenter.sh/v1/nodepools/noreader')
        ).status?.conditions?.some(
          (c) =>
            c.type === 'NodeClassReady' &&
            c.status === 'False' &&
            c.reason === 'DiskEncryptionSetRBACMissing',
        ),
      30_000,
    );
    expect(arm.state.requestsTo('PUT', '/networkInterfaces/aks-noreader')).toEqual([]);
    arm.faults.clear();
    await harness.deleteNodePool('noreader');
  });
});

/** Creates one spot NodeClaim of pool `azure` in `zone` (`1`), waits for its VM; returns [size, zone]. */
async function launchOne(name: string, zone: string): Promise<[string, string]> {
  const claim = nodeClaim(name, {
    nodePool: 'azure',
    nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'azure' },
    requirements: [
      { key: 'karpenter.sh/nodepool', operator: 'In', values: ['azure'] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: SIZES },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: [`${REGION}-${zone}`] },
    ],
    requests: { cpu: '1', memory: '1Gi' },
  });
  await api.request('POST', '/apis/karpenter.sh/v1/nodeclaims', { body: claim });
  const launched = await eventually(
    `node claim ${name} to launch`,
    async () => {
      const c = await api.request<NodeClaim>('GET', `/apis/karpenter.sh/v1/nodeclaims/${name}`);
      return c.status?.providerID ? c : undefined;
    },
    30_000,
  );
  const vm = (arm.state.virtualMachines(NODE_RG) as unknown as ArmVm[]).find(
    (v) => v.tags?.['karpenter.sh_nodeclaim'] === name,
  );
  expect(vm?.properties.hardwareProfile?.vmSize).toBe(
    launched.metadata.labels?.['node.kubernetes.io/instance-type'],
  );
  return [vm?.properties.hardwareProfile?.vmSize ?? '', vm?.zones?.[0] ?? ''];
}

async function removeClaim(name: string): Promise<void> {
  await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${name}`);
  await eventually(
    `node claim ${name}, its node and its VM to go`,
    async () => {
      const claims = await api.request<List<NodeClaim>>('GET', '/apis/karpenter.sh/v1/nodeclaims');
      const nodes = await api.request<List<NodeObject>>('GET', '/api/v1/nodes');
      return (
        !claims.items.some((c) => c.metadata.name === name) &&
        !nodes.items.some((n) => n.metadata.name === `aks-${name}`) &&
        !arm.state.virtualMachines().some((v) => v.name === `aks-${name}`)
      );
    },
    30_000,
  );
}
