import type { Node } from '@karpenter-ts/api';
import { affinityTerm, unschedulablePods } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { NodeHealth } from '../src/index.js';
import { apply, provisionNodes, readyNodePool, testEnv, type TestEnv } from './helpers.js';

/** Sets the Node's Ready condition, transitioned `minutesAgo` before now. */
async function setReady(
  env: TestEnv,
  node: Node,
  status: 'True' | 'False' | 'Unknown',
  minutesAgo: number,
) {
  const latest = await env.client.get('Node', { name: node.metadata?.name ?? '' });
  if (latest === undefined) throw new Error('node gone');
  latest.status = {
    ...(latest.status ?? {}),
    conditions: [
      ...(latest.status?.conditions ?? []).filter((c) => c.type !== 'Ready'),
      {
        type: 'Ready',
        status,
        lastTransitionTime: new Date(env.clock.now() - minutesAgo * 60_000),
      },
    ],
  };
  await env.client.updateStatus('Node', latest);
}

async function nodes(env: TestEnv, count: number): Promise<Node[]> {
  await apply(
    env,
    readyNodePool(),
    // One pod per node: hostname anti-affinity among themselves.
    ...unschedulablePods(count, {
      requests: { cpu: '1' },
      labels: { app: 'spread' },
      podAntiAffinity: [affinityTerm('kubernetes.io/hostname', { app: 'spread' })],
    }),
  );
  return provisionNodes(env);
}

describe('node repair (NodeRepair gate)', () => {
  it('replaces a node NotReady for longer than the sim policy toleration (10 min), forcefully', async () => {
    const env = await testEnv();
    const [node, ...rest] = await nodes(env, 5);
    expect(rest.length).toBeGreaterThanOrEqual(4);
    await setReady(env, node as Node, 'False', 11);
    const health = new NodeHealth({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    });
    await health.reconcile(node?.metadata?.name ?? '');
    const [claim] = await env.client.list('NodeClaim', {
      providerID: node?.spec?.providerID ?? '',
    });
    expect(claim?.metadata.deletionTimestamp).toBeDefined();
    expect(claim?.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp']).toBe(
      new Date(env.clock.now()).toISOString(),
    );
  });

  it('waits until the toleration has passed, requeueing for the rest of it', async () => {
    const env = await testEnv();
    const [node] = await nodes(env, 5);
    await setReady(env, node as Node, 'False', 4);
    const health = new NodeHealth({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    });
    const result = await health.reconcile(node?.metadata?.name ?? '');
    expect(result.requeueAfter).toBe(6 * 60);
    const [claim] = await env.client.list('NodeClaim', {
      providerID: node?.spec?.providerID ?? '',
    });
    expect(claim?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('repairs nothing while more than 20% of the pool is unhealthy (2 of 5 > ceil(1)), and says so', async () => {
    const env = await testEnv();
    const [a, b] = await nodes(env, 5);
    await setReady(env, a as Node, 'False', 30);
    await setReady(env, b as Node, 'Unknown', 30);
    const health = new NodeHealth({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    });
    const result = await health.reconcile(a?.metadata?.name ?? '');
    expect(result.requeueAfter).toBe(300);
    const claims = await env.client.list('NodeClaim');
    expect(claims.every((c) => c.metadata.deletionTimestamp === undefined)).toBe(true);
    expect(env.client.events.some((e) => e.reason === 'NodeRepairBlocked')).toBe(true);
  });
});
