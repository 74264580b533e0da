import type { Node, Pod, Taint } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import {
  KwokCloudProvider,
  KwokUnregisteredTaint,
  NodeClaimNotFoundError,
  SimCloudProvider,
  kwokInstanceTypes,
  kwokNodeFor,
  type KwokClusterApi,
} from '../src/index.js';
import { ManualClock, nodeClaim } from './builders.js';

/** An in-memory cluster side: Nodes, Leases and Pods by name, with optional failures. */
class FakeCluster implements KwokClusterApi {
  readonly nodes = new Map<string, Node>();
  readonly leases = new Map<string, { renewals: number; duration: number }>();
  readonly pods = new Map<string, Pod>();
  failCreates = 0;

  async createNode(node: Node): Promise<void> {
    if (this.failCreates > 0) {
      this.failCreates -= 1;
      throw new Error('apiserver unavailable');
    }
    const name = node.metadata?.name ?? '';
    if (!this.nodes.has(name)) this.nodes.set(name, structuredClone(node));
  }
  async deleteNode(name: string): Promise<void> {
    this.nodes.delete(name);
  }
  async renewNodeLease(nodeName: string, leaseDurationSeconds: number): Promise<void> {
    const lease = this.leases.get(nodeName) ?? { renewals: 0, duration: 0 };
    this.leases.set(nodeName, { renewals: lease.renewals + 1, duration: leaseDurationSeconds });
  }
  async podsOnNode(nodeName: string): Promise<Pod[]> {
    return [...this.pods.values()].filter((p) => p.spec?.nodeName === nodeName);
  }
  async forceDeletePod(namespace: string, name: string): Promise<void> {
    this.pods.delete(`${namespace}/${name}`);
  }
  async removeNodeTaints(nodeName: string, taints: readonly Taint[]): Promise<void> {
    const node = this.nodes.get(nodeName);
    if (node?.spec === undefined) return;
    node.spec.taints = (node.spec.taints ?? []).filter(
      (t) => !taints.some((x) => x.key === t.key && x.effect === t.effect),
    );
  }
  addPod(name: string, nodeName: string, deleting: boolean): void {
    this.pods.set(`default/${name}`, {
      metadata: {
        name,
        namespace: 'default',
        uid: `uid-${name}`,
        ...(deleting ? { deletionTimestamp: new Date() } : {}),
      },
      spec: { nodeName, containers: [] },
    });
  }
}

function setup(options: { startupTaintRemovalSeconds?: number } = {}) {
  const clock = new ManualClock();
  const sim = new SimCloudProvider({ instanceTypes: kwokInstanceTypes(), clock });
  const cluster = new FakeCluster();
  const errors: string[] = [];
  const kwok = new KwokCloudProvider(sim, {
    api: cluster,
    clock,
    onError: (_err, context) => errors.push(context),
    ...options,
  });
  return { clock, sim, cluster, kwok, errors };
}

const linuxAmd64 = [
  { key: 'kubernetes.io/os', operator: 'In' as const, values: ['linux'] },
  { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64'] },
  { key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['on-demand'] },
];

describe('kwokNodeFor', () => {
  it('builds a Ready node carrying the claim labels, taints, capacity and provider ID', async () => {
    const { sim, clock } = setup();
    const claim = nodeClaim({ name: 'default-abc', requirements: linuxAmd64 });
    claim.spec.taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }];
    claim.spec.startupTaints = [{ key: 'cni-not-ready', effect: 'NoSchedule' }];
    const launched = await sim.create(claim);
    const node = kwokNodeFor(launched, clock.now());

    expect(node.metadata?.name).toBe('default-abc');
    expect(node.spec?.providerID).toBe(launched.status?.providerID);
    expect(node.metadata?.labels).toMatchObject({
      ...launched.metadata.labels,
      'kubernetes.io/hostname': 'default-abc',
      'karpenter.sh/nodepool': 'default',
      'kubernetes.io/os': 'linux',
    });
    expect(node.spec?.taints).toEqual([
      KwokUnregisteredTaint,
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'cni-not-ready', effect: 'NoSchedule' },
    ]);
    expect(node.status?.capacity).toEqual(launched.status?.capacity);
    expect(node.status?.allocatable).toEqual(launched.status?.allocatable);
    expect(node.status?.allocatable?.['pods']).toBeDefined();
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('True');
    expect(ready?.lastHeartbeatTime).toEqual(new Date(clock.now()));
    expect(node.status?.nodeInfo?.operatingSystem).toBe('linux');
  });

  it('refuses a node claim that was never launched', () => {
    expect(() => kwokNodeFor(nodeClaim({ name: 'x' }), 0)).toThrow(/no status.providerID/);
  });
});

describe('KwokCloudProvider', () => {
  it('registers a node for each launch and deletes it with the machine', async () => {
    const { kwok, cluster, sim } = setup();
    const launched = await kwok.create(nodeClaim({ name: 'a', requirements: linuxAmd64 }));
    expect(cluster.nodes.get('a')?.spec?.providerID).toBe(launched.status?.providerID);
    expect(kwok.registeredNodes()).toEqual(['a']);

    await kwok.delete(launched);
    expect(cluster.nodes.has('a')).toBe(false);
    expect(sim.instances()).toEqual([]);
    expect(kwok.registeredNodes()).toEqual([]);
  });

  it('still deletes the node and then reports NotFound once the machine is gone', async () => {
    const { kwok, cluster } = setup();
    const launched = await kwok.create(nodeClaim({ name: 'a', requirements: linuxAmd64 }));
    await kwok.delete(launched);
    await cluster.createNode(kwokNodeFor(launched, 0)); // someone re-created it meanwhile
    await expect(kwok.delete(launched)).rejects.toBeInstanceOf(NodeClaimNotFoundError);
    expect(cluster.nodes.has('a')).toBe(false);
  });

  it('keeps a launch whose registration failed and registers the node on the next sync', async () => {
    const { kwok, cluster, errors } = setup();
    cluster.failCreates = 1;
    const launched = await kwok.create(nodeClaim({ name: 'a', requirements: linuxAmd64 }));
    expect(launched.status?.providerID).toBeTruthy();
    expect(cluster.nodes.has('a')).toBe(false);
    expect(errors).toEqual(['registering node a']);

    const pass = await kwok.sync();
    expect(pass.registered).toEqual(['a']);
    expect(cluster.nodes.has('a')).toBe(true);
  });

  it('renews each node lease once per heartbeat interval', async () => {
    const { kwok, cluster, clock } = setup();
    await kwok.create(nodeClaim({ name: 'a', requirements: linuxAmd64 }));
    expect((await kwok.sync()).leasesRenewed).toEqual(['a']);
    clock.advanceSeconds(5);
    expect((await kwok.sync()).leasesRenewed).toEqual([]);
    clock.advanceSeconds(5);
    expect((await kwok.sync()).leasesRenewed).toEqual(['a']);
    expect(cluster.leases.get('a')).toEqual({ renewals: 2, duration: 40 });
  });

  it('removes startup taints once the delay after registration has passed', async () => {
    const { kwok, cluster, clock } = setup({ startupTaintRemovalSeconds: 30 });
    const claim = nodeClaim({ name: 'a', requirements: linuxAmd64 });
    claim.spec.startupTaints = [{ key: 'cni-not-ready', effect: 'NoSchedule' }];
    await kwok.create(claim);
    expect((await kwok.sync()).startupTaintsRemoved).toEqual([]);
    clock.advanceSeconds(30);
    expect((await kwok.sync()).startupTaintsRemoved).toEqual(['a']);
    expect(cluster.nodes.get('a')?.spec?.taints).toEqual([KwokUnregisteredTaint]);
  });

  it('finishes the deletion of terminating pods on its nodes only', async () => {
    const { kwok, cluster } = setup();
    await kwok.create(nodeClaim({ name: 'a', requirements: linuxAmd64 }));
    cluster.addPod('leaving', 'a', true);
    cluster.addPod('staying', 'a', false);
    cluster.addPod('elsewhere', 'other-node', true);
    expect((await kwok.sync()).podsDeleted).toEqual(['default/leaving']);
    expect([...cluster.pods.keys()].sort()).toEqual(['default/elsewhere', 'default/staying']);
  });

  it('forgets machines the wrapped cloud no longer runs', async () => {
    const { kwok, sim } = setup();
    const launched = await kwok.create(nodeClaim({ name: 'a', requirements: linuxAmd64 }));
    await sim.delete(launched); // terminated behind the decorator's back
    await kwok.sync();
    expect(kwok.registeredNodes()).toEqual([]);
  });

  it('passes the catalog and identity of the wrapped cloud through', async () => {
    const { kwok, sim } = setup();
    expect(kwok.name).toBe('sim');
    expect(kwok.getSupportedNodeClasses()).toEqual(sim.getSupportedNodeClasses());
    expect(kwok.inner).toBe(sim);
  });

  it('rejects a non-positive heartbeat', () => {
    const sim = new SimCloudProvider({ instanceTypes: [] });
    expect(
      () => new KwokCloudProvider(sim, { api: new FakeCluster(), heartbeatSeconds: 0 }),
    ).toThrow(/heartbeatSeconds must be > 0/);
  });
});
