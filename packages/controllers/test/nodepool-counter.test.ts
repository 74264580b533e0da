import type { Node, NodeClaim, NodePool } from '@karpenter-ts/api';
import { resourceListFromQuantities } from '@karpenter-ts/scheduling';
import { unschedulablePod, unschedulablePods } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ControllerLoop,
  formatNodePoolResources,
  getCondition,
  NODEPOOL_COUNTER_REQUEUE_SECONDS,
  NodePoolCounter,
  type KubeClient,
} from '../src/index.js';
import {
  apply,
  nodeClass,
  provision,
  provisionNodes,
  readyNodePool,
  reconcileNodeClaims,
  testEnv,
  type TestEnv,
} from './helpers.js';

const Zero = { cpu: '0', memory: '0', pods: '0', 'ephemeral-storage': '0', nodes: '0' };

function counter(env: TestEnv, client: KubeClient = env.client): NodePoolCounter {
  return new NodePoolCounter({ client, cluster: env.cluster, cloudProvider: env.cloud });
}

async function pool(env: TestEnv, name = 'default'): Promise<NodePool | undefined> {
  return env.client.get('NodePool', { name });
}

/** A launched NodeClaim of `nodePool` with this capacity (no Node yet). */
async function launchedClaim(
  env: TestEnv,
  name: string,
  capacity: Record<string, string>,
  nodePool = 'default',
): Promise<NodeClaim> {
  return env.client.create('NodeClaim', {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': nodePool } },
    spec: {
      requirements: [],
      nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' },
    },
    status: { providerID: `sim://${name}`, capacity, allocatable: capacity },
  });
}

/** The registered, initialized Node of {@link launchedClaim} `name`, with this capacity. */
async function registeredNode(
  env: TestEnv,
  name: string,
  capacity: Record<string, string>,
  nodePool = 'default',
): Promise<Node> {
  return env.client.create('Node', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'karpenter.sh/nodepool': nodePool,
        'karpenter.sh/registered': 'true',
        'karpenter.sh/initialized': 'true',
      },
    },
    spec: { providerID: `sim://${name}` },
    status: { capacity, allocatable: capacity },
  });
}

const node8 = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };

describe('NodePool counter (status.resources and status.nodes)', () => {
  it('seeds cpu, memory, pods, ephemeral-storage and nodes with zero for a pool without nodes', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    const result = await counter(env).reconcile('default');
    expect(result).toEqual({ requeueAfter: NODEPOOL_COUNTER_REQUEUE_SECONDS });
    expect(NODEPOOL_COUNTER_REQUEUE_SECONDS).toBe(5);
    const p = await pool(env);
    expect(p?.status?.resources).toEqual(Zero);
    expect(p?.status?.nodes).toBe(0);
  });

  it('sums the capacity of the pool nodes as canonical quantities: cpu "16", memory "64Gi"', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    for (const name of ['a', 'b']) {
      await launchedClaim(env, name, node8);
      await registeredNode(env, name, node8);
    }
    await counter(env).reconcile('default');
    const p = await pool(env);
    expect(p?.status?.resources).toEqual({
      cpu: '16',
      memory: '64Gi',
      pods: '220',
      'ephemeral-storage': '200Gi',
      nodes: '2',
    });
    expect(p?.status?.nodes).toBe(2);
  });

  it('counts a launched NodeClaim by its capacity before its Node registers, then the Node capacity', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    await launchedClaim(env, 'a', { cpu: '100m', memory: '1Gi', pods: '256' });
    await counter(env).reconcile('default');
    expect((await pool(env))?.status?.resources).toEqual({
      ...Zero,
      cpu: '100m',
      memory: '1Gi',
      pods: '256',
      nodes: '1',
    });
    // The kubelet reports a different capacity; once initialized the Node speaks for the machine.
    await registeredNode(env, 'a', { cpu: '1', memory: '2Gi', pods: '512' });
    await counter(env).reconcile('default');
    expect((await pool(env))?.status?.resources).toEqual({
      ...Zero,
      cpu: '1',
      memory: '2Gi',
      pods: '512',
      nodes: '1',
    });
    expect((await pool(env))?.status?.nodes).toBe(1);
  });

  it('keeps fractions exact: 100m + 500m cpu is "600m", 16393220Ki × 2 memory is "32786440Ki"', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    await launchedClaim(env, 'a', { cpu: '100m', memory: '16393220Ki' });
    await launchedClaim(env, 'b', { cpu: '500m', memory: '16393220Ki' });
    await counter(env).reconcile('default');
    const resources = (await pool(env))?.status?.resources;
    expect(resources?.cpu).toBe('600m');
    expect(resources?.memory).toBe('32786440Ki');
  });

  it('follows launches, registrations and deletions through the controllers', async () => {
    const env = await testEnv();
    await apply(
      env,
      readyNodePool(),
      unschedulablePod({ requests: { cpu: '1' } }),
      unschedulablePod({ requests: { cpu: '1' } }),
    );
    const c = counter(env);
    await c.reconcile('default');
    expect((await pool(env))?.status?.nodes).toBe(0);

    const [node] = await provisionNodes(env);
    await c.reconcile('default');
    const [claim] = await env.client.list('NodeClaim');
    const capacity = node?.status?.capacity ?? {};
    expect((await pool(env))?.status).toMatchObject({
      nodes: 1,
      resources: { ...Zero, ...capacity, nodes: '1' },
    });

    // Deleting the NodeClaim takes it out of the count at once, while its node still drains.
    await env.client.delete('NodeClaim', { name: claim?.metadata.name ?? '' });
    await c.reconcile('default');
    expect((await pool(env))?.status?.resources).toEqual(Zero);
    expect((await pool(env))?.status?.nodes).toBe(0);
  });

  it('does not count nodes marked for deletion, nor other pools nodes', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), readyNodePool({ name: 'other' }));
    await launchedClaim(env, 'a', node8);
    await launchedClaim(env, 'b', node8);
    await launchedClaim(env, 'c', node8, 'other');
    env.cluster.markForDeletion('b');
    await counter(env).reconcile('default');
    await counter(env).reconcile('other');
    expect((await pool(env))?.status?.resources?.cpu).toBe('8');
    expect((await pool(env))?.status?.nodes).toBe(1);
    expect((await pool(env, 'other'))?.status?.nodes).toBe(1);
    env.cluster.unmarkForDeletion('b');
    await counter(env).reconcile('default');
    expect((await pool(env))?.status?.nodes).toBe(2);
  });

  it('waits for cluster state to sync: while a launch is in flight it writes nothing and retries in 1 s', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    await provision(env); // a NodeClaim without a provider ID yet
    const before = (await pool(env))?.metadata.resourceVersion;
    expect(await counter(env).reconcile('default')).toEqual({ requeueAfter: 1 });
    expect((await pool(env))?.metadata.resourceVersion).toBe(before);
    expect((await pool(env))?.status?.resources).toBeUndefined();
    await reconcileNodeClaims(env); // launched
    await counter(env).reconcile('default');
    expect((await pool(env))?.status?.nodes).toBe(1);
  });

  it('leaves the conditions and other status fields as they are', async () => {
    const env = await testEnv();
    const p = readyNodePool();
    p.status = { ...p.status, nodeClassObservedGeneration: 3 };
    await apply(env, p);
    await launchedClaim(env, 'a', node8);
    await counter(env).reconcile('default');
    const after = await pool(env);
    expect(after?.status?.nodeClassObservedGeneration).toBe(3);
    expect(after?.status?.conditions).toEqual(p.status.conditions);
    expect(after?.status?.nodes).toBe(1);
  });

  it('does not write when the counts are unchanged', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    await launchedClaim(env, 'a', node8);
    await counter(env).reconcile('default');
    const version = (await pool(env))?.metadata.resourceVersion;
    expect(await counter(env).reconcile('default')).toEqual({ requeueAfter: 5 });
    expect((await pool(env))?.metadata.resourceVersion).toBe(version);
  });

  it('never clobbers a condition written between its read and its write: it conflicts and retries', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    await launchedClaim(env, 'a', node8);
    // Another controller (readiness) writes the status right after the counter read the pool.
    let raced = false;
    const raceAfterRead: KubeClient['get'] = async (kind, key) => {
      const read = await env.client.get(kind, key);
      if (kind === 'NodePool' && !raced && read !== undefined) {
        raced = true;
        const other = structuredClone(read) as NodePool;
        other.status?.conditions?.push({
          type: 'NodeRegistrationHealthy',
          status: 'True',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'Healthy',
          message: '',
        });
        await env.client.updateStatus('NodePool', other);
      }
      return read;
    };
    const racing = new Proxy(env.client, {
      get: (target, prop) => {
        if (prop === 'get') return raceAfterRead;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const c = counter(env, racing);
    expect(await c.reconcile('default')).toEqual({ requeueAfter: 1 });
    expect(await c.reconcile('default')).toEqual({ requeueAfter: 5 });
    const after = await pool(env);
    expect(after?.status?.nodes).toBe(1);
    expect(getCondition(after ?? {}, 'NodeRegistrationHealthy')?.status).toBe('True');
    expect(getCondition(after ?? {}, 'Ready')?.status).toBe('True');
  });

  it('rethrows API errors other than a conflict, and is done when the pool is gone', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool());
    env.client.failNext('updateStatus', new Error('etcd timeout'));
    await expect(counter(env).reconcile('default')).rejects.toThrow('etcd timeout');
    env.client.failNext('updateStatus', new ConflictError('stale'));
    expect(await counter(env).reconcile('default')).toEqual({ requeueAfter: 1 });
    expect(await counter(env).reconcile('missing')).toEqual({});
  });

  it('leaves NodePools alone whose NodeClass this cloud provider does not manage', async () => {
    const env = await testEnv();
    const p = readyNodePool();
    p.spec.template.spec.nodeClassRef = {
      group: 'karpenter.test.sh',
      kind: 'UnmanagedNodeClass',
      name: 'default',
    };
    await apply(env, p);
    await launchedClaim(env, 'a', node8);
    expect(await counter(env).reconcile('default')).toEqual({});
    expect((await pool(env))?.status?.resources).toBeUndefined();
  });

  it('the provisioner limits read cluster state, not a stale status.resources', async () => {
    const env = await testEnv();
    await apply(
      env,
      readyNodePool({ limits: { nodes: '1' } }),
      unschedulablePod({ requests: { cpu: '1' } }),
    );
    await provisionNodes(env);
    // status.resources lags (written every 5 s): a stale zero must not let a second node through.
    await counter(env).reconcile('default');
    const stale = await pool(env);
    if (stale?.status) stale.status.resources = { ...Zero };
    if (stale) await env.client.updateStatus('NodePool', stale);
    // Fits no existing node, so only a second node could host it.
    await apply(env, unschedulablePod({ requests: { cpu: '4' } }));
    await provision(env);
    expect(await env.client.list('NodeClaim')).toHaveLength(1);
  });
});

describe('NodePool counter in the simulator loop', () => {
  it('reports the node count and summed cpu once the pods are bound, and zero after scale-down', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), ...unschedulablePods(60, { requests: { cpu: '900m' } }));
    await env.client.create('NodeClass', nodeClass());
    const loop = new ControllerLoop({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
      provisioner: { solver: 'ts' },
    });
    await loop.start();
    const allBound = async () => (await env.client.list('Pod')).every((p) => p.spec?.nodeName);
    expect(await loop.runUntil(allBound, 120)).toBe(true);
    await loop.step();
    const nodes = await env.client.list('Node');
    const cpu = nodes.reduce(
      (sum, n) => sum + (resourceListFromQuantities(n.status?.capacity ?? {}).cpu ?? 0),
      0,
    );
    expect(nodes.length).toBeGreaterThan(1);
    let status = (await pool(env))?.status;
    expect(status?.nodes).toBe(nodes.length);
    expect(resourceListFromQuantities(status?.resources ?? {}).cpu).toBe(cpu);

    for (const pod of await env.client.list('Pod'))
      await env.client.delete('Pod', { name: pod.metadata?.name ?? '', namespace: 'default' });
    for (const claim of await env.client.list('NodeClaim'))
      await env.client.delete('NodeClaim', { name: claim.metadata.name ?? '' });
    const gone = async () => (await env.client.list('Node')).length === 0;
    expect(await loop.runUntil(gone, 120)).toBe(true);
    await loop.step();
    loop.stop();
    status = (await pool(env))?.status;
    expect(status?.nodes).toBe(0);
    expect(status?.resources).toEqual(Zero);
  });
});

describe('formatNodePoolResources', () => {
  it('prints cpu from millicores, memory-like resources in binary units, the rest as decimals', () => {
    expect(
      formatNodePoolResources({
        cpu: 16_000,
        memory: 64 * 2 ** 30,
        'ephemeral-storage': 1536 * 2 ** 20,
        'hugepages-2Mi': 4 * 2 ** 20,
        pods: 220,
        nodes: 2,
        'nvidia.com/gpu': 8,
      }),
    ).toEqual({
      cpu: '16',
      memory: '64Gi',
      'ephemeral-storage': '1536Mi',
      'hugepages-2Mi': '4Mi',
      pods: '220',
      nodes: '2',
      'nvidia.com/gpu': '8',
    });
  });

  it('seeds the base resources with zero and prints large cpu counts as Kubernetes does', () => {
    expect(formatNodePoolResources({})).toEqual(Zero);
    expect(formatNodePoolResources({ cpu: 1_500 }).cpu).toBe('1500m');
    expect(formatNodePoolResources({ cpu: 1_000_000 }).cpu).toBe('1k');
    expect(formatNodePoolResources({ memory: 1000 }).memory).toBe('1k');
  });
});
