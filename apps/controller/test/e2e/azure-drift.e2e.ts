/**
 * `--provider azure` drift on the real control plane against the ARM emulator: what
 * provider-azure's `isDrifted` compares changes and the disruption controller replaces every VM.
 * 1. A new node image version is published in the community gallery (newer `publishedDate`) and
 *    the controller restarts (its image cache is cold): the AKSNodeClass's `status.images` moves
 *    to the new version (no maintenance window ConfigMap: always open), so every NodeClaim's
 *    `status.imageID` is no longer among them: `Drifted=True` (`ImageDrift`).
 * 2. Without a restart, `spec.imageFamily` goes from Ubuntu to AzureLinux: the NodeClass hash on
 *    the NodeClaims no longer matches, `Drifted=True` (`NodeClassDrift`).
 * Each time new VMs boot the new image, the old VMs, NICs and OS disks are deleted, the pods are
 * evicted and bound again by the real kube-scheduler, and afterwards nothing leaks: every VM, NIC
 * and disk of the node resource group is `aks-<name>` of a live NodeClaim, as the Azure garbage
 * collection suite checks. The NodePool's budget allows every node at once (`nodes: 100%`); the
 * controller is a child process (test/e2e/process) with a managed identity token endpoint.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureHarness } from './azure-harness.js';
import { startController, type ControllerProcess } from './process/controller-process.js';
import { eventually, Workload, type NodeObject } from './support.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000e5';
const NODE_RG = 'MC_rg_e2e-drift_southcentralus';
const REGION = 'southcentralus';
const CLUSTER = 'e2e-drift';
const NAME = 'azure-drift';
const UBUNTU_GALLERY = 'AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2';
/** Ubuntu 24.04 (Kubernetes 1.36): Gen2, Gen1, arm64. */
const UBUNTU_DEFINITIONS = ['2404gen2containerd', '2404containerd', '2404gen2arm64containerd'];
/** The emulator's newest seeded version (what the first VMs boot). */
const SEEDED = '202503.05.0';
/** Published before the restart: the version the replacements must boot. */
const NEWER = '202509.02.0';
/** Two-core size: one one-core pod per VM, so the pool has one VM per pod. */
const SIZES = ['Standard_D2s_v3'];
const PODS = 2;
const AKSNodeClassPath = `/apis/karpenter.azure.com/v1beta1/aksnodeclasses/${NAME}`;

interface ArmVm {
  name: string;
  tags?: Record<string, string>;
  properties: { storageProfile?: { imageReference?: { communityGalleryImageId?: string } } };
}

interface NodeClassStatus {
  metadata: { generation?: number };
  spec: { imageFamily?: string };
  status?: {
    images?: { id: string }[];
    conditions?: { type: string; status: string; observedGeneration?: number }[];
  };
}

let harness: AzureHarness;
let workload: Workload;
let controller: ControllerProcess | undefined;

function vms(): ArmVm[] {
  return harness.arm.state.virtualMachines(NODE_RG) as unknown as ArmVm[];
}

/** The image each VM of the pool was created from, by VM name. */
function vmImages(): Record<string, string | undefined> {
  return Object.fromEntries(
    vms().map((v) => [
      v.name,
      v.properties.storageProfile?.imageReference?.communityGalleryImageId,
    ]),
  );
}

function drifted(c: NodeClaim): { status: string; reason?: string } | undefined {
  return c.status?.conditions?.find((x) => x.type === 'Drifted');
}

/** The AKSNodeClass once its status is Ready for its current generation. */
async function readyNodeClass(): Promise<NodeClassStatus | undefined> {
  const nc = await harness.api.request<NodeClassStatus>('GET', AKSNodeClassPath);
  const ready = nc.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && ready.observedGeneration === nc.metadata.generation
    ? nc
    : undefined;
}

/**
 * A settled pool: every NodeClaim launched, registered and initialized, one per pod, none
 * deleting; every pod bound to one of their Nodes; no NodeClaim left from `old`.
 */
async function settledOn(old: readonly string[]): Promise<{
  claims: NodeClaim[];
  nodes: NodeObject[];
}> {
  return eventually(
    `the pool to settle on ${PODS} new node claims with every pod bound`,
    async () => {
      const claims = await workload.nodeClaims();
      if (claims.length !== PODS) return false;
      if (claims.some((c) => old.includes(c.metadata.name ?? ''))) return false;
      const initialized = claims.every(
        (c) =>
          c.metadata.deletionTimestamp === undefined &&
          c.status?.providerID &&
          c.status.conditions?.some((x) => x.type === 'Initialized' && x.status === 'True'),
      );
      if (!initialized) return false;
      const nodes = await workload.nodes();
      if (nodes.length !== PODS) return false;
      const names = new Set(nodes.map((n) => n.metadata.name));
      const pods = await workload.pods();
      const bound =
        pods.length === PODS &&
        pods.every(
          (p) => p.metadata?.deletionTimestamp === undefined && names.has(p.spec?.nodeName ?? ''),
        );
      return bound ? { claims, nodes } : false;
    },
    150_000,
  );
}

/** Every VM, NIC and OS disk of the node resource group belongs to one of `claims`, and back. */
function expectNoLeak(claims: readonly NodeClaim[]): void {
  const expected = claims.map((c) => `aks-${c.metadata.name}`).sort();
  expect(harness.armNames()).toEqual({ vms: expected, nics: expected, disks: expected });
}

beforeAll(async () => {
  harness = await AzureHarness.start({
    subscription: SUBSCRIPTION,
    nodeResourceGroup: NODE_RG,
    region: REGION,
    clusterName: CLUSTER,
    managedIdentity: true,
  });
  workload = new Workload(harness.api, NAME, PODS);
  await harness.createNodePool(NAME, SIZES, ['on-demand']);
  // Every node may be disrupted at once. No consolidation: drift alone moves the nodes (and
  // nothing but the NodeClass change brings the node claims' drift check forward: the
  // Consolidatable requeue that consolidateAfter would add is not there).
  await harness.api.request('PATCH', `/apis/karpenter.sh/v1/nodepools/${NAME}`, {
    body: {
      spec: {
        disruption: {
          consolidationPolicy: 'WhenEmpty',
          consolidateAfter: 'Never',
          budgets: [{ nodes: '100%' }],
        },
      },
    },
    contentType: 'application/merge-patch+json',
  });
});

afterAll(async () => {
  const ignore = () => {};
  try {
    if (controller !== undefined) await workload.remove().catch(ignore);
  } finally {
    await controller?.stop();
    await harness?.deleteNodePool(NAME);
    await harness?.stop();
  }
});

describe('drift of AKSNodeClass images (--provider azure)', () => {
  let first: NodeClaim[] = [];

  it('launches one VM per pod from the newest seeded Ubuntu image', async () => {
    controller = await startController('azure-drift-first', harness.controllerArgs(), harness.env);
    await workload.poolReady();
    await workload.deploy();
    ({ claims: first } = await settledOn([]));
    const images = vmImages();
    for (const c of first) {
      expect(images[`aks-${c.metadata.name}`]).toBe(
        `/CommunityGalleries/${UBUNTU_GALLERY}/images/2404gen2containerd/versions/${SEEDED}`,
      );
      expect(c.status?.imageID).toBe(images[`aks-${c.metadata.name}`]);
      expect(drifted(c)).toBeUndefined();
    }
    expectNoLeak(first);
  });

  it('a newer gallery version moves status.images: the node claims drift (ImageDrift) and new VMs boot it', async () => {
    // The controller's image cache lasts 3 days: a restart is when a newer version is seen.
    await controller?.stop();
    controller = undefined;
    for (const image of UBUNTU_DEFINITIONS)
      harness.arm.publishImageVersion({
        gallery: UBUNTU_GALLERY,
        image,
        version: NEWER,
        publishedDate: '2025-09-02T00:00:00Z',
      });
    const oldNames = first.map((c) => c.metadata.name ?? '');
    controller = await startController('azure-drift-image', harness.controllerArgs(), harness.env);

    const nodeClass = await eventually(
      `the AKSNodeClass images to move to ${NEWER}`,
      async () => {
        const nc = await readyNodeClass();
        return nc?.status?.images?.every((i) => i.id.endsWith(`/versions/${NEWER}`)) ? nc : false;
      },
      60_000,
    );
    expect(nodeClass.status?.images?.[0]?.id).toBe(
      `/CommunityGalleries/${UBUNTU_GALLERY}/images/2404gen2containerd/versions/${NEWER}`,
    );
    // Each old node claim is marked before it goes (or is gone already when it was seen late).
    const reasons = await eventually(
      'every old node claim to be Drifted (or already replaced)',
      async () => {
        const claims = await workload.nodeClaims();
        const old = claims.filter((c) => oldNames.includes(c.metadata.name ?? ''));
        if (old.some((c) => drifted(c)?.status !== 'True' && !c.metadata.deletionTimestamp))
          return false;
        return old.map((c) => drifted(c)?.reason);
      },
      60_000,
    );
    for (const r of reasons) expect(r).toBe('ImageDrift');

    const { claims, nodes } = await settledOn(oldNames);
    const images = vmImages();
    for (const c of claims) {
      expect(images[`aks-${c.metadata.name}`]).toBe(
        `/CommunityGalleries/${UBUNTU_GALLERY}/images/2404gen2containerd/versions/${NEWER}`,
      );
      expect(drifted(c)).toBeUndefined();
    }
    await eventually(
      'the old VMs, NICs and disks to be deleted',
      async () => {
        const names = harness.armNames();
        return oldNames.every(
          (n) => ![...names.vms, ...names.nics, ...names.disks].includes(`aks-${n}`),
        );
      },
      60_000,
    );
    for (const n of oldNames)
      expect(
        harness.arm.state.requestsTo('DELETE', `/virtualMachines/aks-${n}`).length,
      ).toBeGreaterThan(0);
    expect(nodes.map((n) => n.metadata.name)).not.toEqual(
      expect.arrayContaining(oldNames.map((n) => `aks-${n}`)),
    );
    expectNoLeak(claims);
    expect(harness.arm.state.bootErrors).toEqual([]);
    first = claims;
  });

  it('imageFamily Ubuntu -> AzureLinux: the node claims drift (NodeClassDrift) and are replaced by AzureLinux VMs', async () => {
    const oldNames = first.map((c) => c.metadata.name ?? '');
    await harness.api.request('PATCH', AKSNodeClassPath, {
      body: { spec: { imageFamily: 'AzureLinux' } },
      contentType: 'application/merge-patch+json',
    });
    const nodeClass = await eventually(
      'the AKSNodeClass images to be AzureLinux',
      async () => {
        const nc = await readyNodeClass();
        return nc?.status?.images?.length && nc.status.images.every((i) => /AzureLinux/i.test(i.id))
          ? nc
          : false;
      },
      60_000,
    );
    const wanted = new Set(nodeClass.status?.images?.map((i) => i.id));
    const reasons = await eventually(
      'every old node claim to be Drifted (or already replaced)',
      async () => {
        const claims = await workload.nodeClaims();
        const old = claims.filter((c) => oldNames.includes(c.metadata.name ?? ''));
        if (old.some((c) => drifted(c)?.status !== 'True' && !c.metadata.deletionTimestamp))
          return false;
        return old.map((c) => drifted(c)?.reason);
      },
      60_000,
    );
    for (const r of reasons) expect(r).toBe('NodeClassDrift');

    const { claims } = await settledOn(oldNames);
    const images = vmImages();
    for (const c of claims) {
      expect(wanted.has(images[`aks-${c.metadata.name}`] ?? '')).toBe(true);
      expect(drifted(c)).toBeUndefined();
    }
    await eventually(
      'the old VMs, NICs and disks to be deleted',
      async () => {
        const names = harness.armNames();
        return oldNames.every(
          (n) => ![...names.vms, ...names.nics, ...names.disks].includes(`aks-${n}`),
        );
      },
      60_000,
    );
    expectNoLeak(claims);
    expect(harness.arm.state.bootErrors).toEqual([]);
    expect(harness.kubelets.errors).toEqual([]);
  });
});
