import type { NodeClaim } from '@karpenter-ts/api';
import { SimCloudProvider } from '@karpenter-ts/cloudprovider';
import { describe, expect, it } from 'vitest';
import {
  ControllerLoop,
  emptySnapshot,
  loadSnapshot,
  ManualClock,
  MemoryKubeClient,
  planDisruptionNow,
  seedSnapshotDrift,
  SnapshotError,
  SnapshotMachineStore,
  snapshotMachines,
  snapshotProblems,
  snapshotReferenceProblems,
  type ClusterSnapshot,
  type Located,
} from '../src/index.js';
import { nodeClass, TestNodeClass } from './helpers.js';
import {
  addNode,
  bindPods,
  names,
  replacementTypes,
  sizedCatalog,
  unitEnv,
  type UnitEnv,
} from './disruption/support.js';

function at<T>(object: T, i: number): Located<T> {
  return { object, source: 'snap.yaml:1', path: `items[${i}]` };
}

/** Everything the unit env's client holds, as a snapshot read from one List. */
async function listed(env: UnitEnv): Promise<ClusterSnapshot> {
  let i = 0;
  const all = async <K extends Parameters<UnitEnv['client']['list']>[0]>(kind: K) =>
    (await env.client.list(kind)).map((o) => at(o, i++));
  return {
    // The unit env runs no readiness controller and holds no NodeClass; a cluster would.
    nodeClasses: [at(nodeClass(), i++)],
    nodePools: await all('NodePool'),
    nodeClaims: await all('NodeClaim'),
    nodes: await all('Node'),
    pods: await all('Pod'),
    daemonSets: await all('DaemonSet'),
    podDisruptionBudgets: await all('PodDisruptionBudget'),
    nodeOverlays: await all('NodeOverlay'),
    limitRanges: await all('LimitRange'),
    persistentVolumeClaims: await all('PersistentVolumeClaim'),
    persistentVolumes: await all('PersistentVolume'),
    storageClasses: await all('StorageClass'),
    csiNodes: await all('CSINode'),
  };
}

/** A fresh in-memory cluster holding the snapshot, with the sim cloud adopting its machines. */
async function replay(snapshot: ClusterSnapshot, nowMs: number) {
  const clock = new ManualClock(nowMs);
  const client = new MemoryKubeClient({ clock });
  const cloud = new SimCloudProvider({
    instanceTypes: sizedCatalog(),
    clock,
    nodeClasses: [TestNodeClass],
    store: new SnapshotMachineStore(snapshotMachines(snapshot)),
  });
  const loaded = await loadSnapshot(client, snapshot);
  const loop = new ControllerLoop({
    client,
    cloudProvider: cloud,
    clock,
    provisioner: { solver: 'ts' },
  });
  await loop.start();
  return { clock, client, cloud, loop, loaded };
}

describe('cluster snapshots', () => {
  it('a cluster listed and loaded again makes the disruption decision the cluster makes', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b' });
    await bindPods(env, 'a', 1);
    await bindPods(env, 'b', 1);
    const live = await env.disruption.plan();
    expect(live.commands).toHaveLength(1);

    const { client, loop } = await replay(await listed(env), env.clock.now());
    const replayed = await planDisruptionNow(loop, client);

    expect(replayed.method).toBe(live.method);
    expect(names(replayed.commands[0])).toEqual(names(live.commands[0]));
    expect(replacementTypes(replayed.commands[0])).toEqual(replacementTypes(live.commands[0]));
  });

  it('keeps creation times, uids and status, and the sim cloud adopts the machines so garbage collection keeps them', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    env.clock.advance(3600);
    const snapshot = await listed(env);
    const { client, loop, cloud } = await replay(snapshot, env.clock.now());

    const [claim] = await client.list('NodeClaim');
    const original = snapshot.nodeClaims[0]!.object;
    expect(claim!.metadata.uid).toBe(original.metadata.uid);
    expect(new Date(claim!.metadata.creationTimestamp!).getTime()).toBe(
      new Date(original.metadata.creationTimestamp!).getTime(),
    );
    expect(claim!.status?.providerID).toBe(original.status?.providerID);
    expect(cloud.instances().map((m) => m.providerID)).toEqual([original.status?.providerID]);

    await loop.garbageCollection.reconcile();
    env.clock.advance(600);
    await loop.garbageCollection.reconcile();
    expect((await client.list('NodeClaim')).map((c) => c.metadata.name)).toEqual(['a']);
    expect(cloud.instances()).toHaveLength(1);
  });

  it('counts a Node without a NodeClaim as unmanaged capacity, giving it a provider ID when it has none', async () => {
    const snapshot: ClusterSnapshot = {
      ...emptySnapshot(),
      nodes: [
        at(
          {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: { name: 'system-1' },
            status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
          },
          0,
        ),
      ],
    };
    const { client, loaded, loop } = await replay(snapshot, Date.UTC(2026, 0, 1));
    expect(loaded.unmanagedNodes).toEqual(['system-1']);
    expect(loaded.notes).toEqual([
      'Node system-1 has no spec.providerID: given snapshot:///system-1 (unmanaged capacity)',
    ]);
    expect((await client.get('Node', { name: 'system-1' }))?.spec?.providerID).toBe(
      'snapshot:///system-1',
    );
    expect(loop.cluster.nodes().map((n) => [n.name(), n.managed()])).toEqual([['system-1', false]]);
  });

  it('refuses a pod bound to a Node it does not hold, a NodeClaim without its Node, one still launching and an object defined twice, loading nothing', async () => {
    const claim = (name: string, providerID?: string): NodeClaim => ({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name },
      spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'K', name: 'default' } },
      ...(providerID ? { status: { providerID } } : {}),
    });
    const snapshot: ClusterSnapshot = {
      ...emptySnapshot(),
      nodeClaims: [at(claim('gone', 'sim:///z/gone'), 0), at(claim('launching'), 1)],
      pods: [
        at(
          {
            metadata: { name: 'web-1', namespace: 'shop' },
            spec: { containers: [], nodeName: 'n9' },
          },
          2,
        ),
        at({ metadata: { name: 'web-1', namespace: 'shop' }, spec: { containers: [] } }, 3),
        at(
          {
            metadata: { name: 'done' },
            spec: { containers: [], nodeName: 'n9' },
            status: { phase: 'Succeeded' },
          },
          4,
        ),
      ],
    };
    expect(snapshotProblems(snapshot).map((p) => `${p.source} ${p.field}: ${p.message}`)).toEqual([
      'snap.yaml:1 items[3].metadata.name: Pod shop/web-1 is also at snap.yaml:1 items[2]',
      'snap.yaml:1 items[0].status.providerID: NodeClaim gone has no Node in the snapshot (none with spec.providerID "sim:///z/gone"): add the Nodes (kubectl get nodes,nodeclaims,... -o yaml), or take the snapshot once the Node has registered',
      'snap.yaml:1 items[1].status.providerID: NodeClaim launching is not launched yet (no status.providerID), and a snapshot cannot replay a launch in flight: take the snapshot again once its Node has registered',
      'snap.yaml:1 items[2].spec.nodeName: Pod shop/web-1 is bound to Node "n9", which the snapshot does not hold: add the Nodes (kubectl get nodes,pods,... -o yaml)',
    ]);
    // The reference rules alone: all but the object defined twice.
    expect(snapshotReferenceProblems(snapshot)).toEqual(snapshotProblems(snapshot).slice(1));
    const client = new MemoryKubeClient();
    await expect(loadSnapshot(client, snapshot)).rejects.toBeInstanceOf(SnapshotError);
    expect(await client.list('NodeClaim')).toEqual([]);
    expect(await client.list('Pod')).toEqual([]);
  });

  it("carries over a provider's drift reason, which the sim cloud cannot recompute", async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: 'ImageDrift' });
    await addNode(env, { name: 'b', drifted: 'RequirementsDrifted' });
    const snapshot = await listed(env);
    const { cloud, client, loop } = await replay(snapshot, env.clock.now());
    expect(seedSnapshotDrift(cloud, snapshot)).toEqual(['a']);
    await planDisruptionNow(loop, client);
    const drifted = (await client.list('NodeClaim')).map((c) => [
      c.metadata.name,
      c.status?.conditions?.find((x) => x.type === 'Drifted')?.reason,
    ]);
    // b's requirements still match its NodePool: recomputed, it is no longer drifted.
    expect(drifted).toEqual([
      ['a', 'ImageDrift'],
      ['b', undefined],
    ]);
  });
});
