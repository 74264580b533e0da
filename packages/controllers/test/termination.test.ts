import type { Node, Pod } from '@karpenter-ts/api';
import { Labels, Taints } from '@karpenter-ts/api';
import { pod, unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { drainTier, getCondition, isTrue, podsWaitingEviction } from '../src/index.js';
import {
  apply,
  pdb,
  provisionNodes,
  readyNodePool,
  runningPod,
  testEnv,
  type TestEnv,
} from './helpers.js';

/** One initialized node from a 4-cpu-ish claim, and its NodeClaim's name. */
async function oneNode(
  env: TestEnv,
  terminationGracePeriod?: string,
): Promise<{ node: Node; claim: string }> {
  await apply(
    env,
    readyNodePool(terminationGracePeriod ? { terminationGracePeriod } : {}),
    unschedulablePod({ name: 'seed', requests: { cpu: '3' } }),
  );
  const [node] = await provisionNodes(env);
  await env.client.delete('Pod', { name: 'seed', namespace: 'default' });
  return {
    node: node as Node,
    claim: (await env.client.list('NodeClaim'))[0]?.metadata.name ?? '',
  };
}

async function place(env: TestEnv, node: Node, ...pods: Pod[]): Promise<void> {
  for (const p of pods) await env.client.create('Pod', runningPod(p, node.metadata?.name ?? ''));
}

async function podNames(env: TestEnv): Promise<string[]> {
  return (await env.client.list('Pod')).map((p) => p.metadata?.name ?? '').sort();
}

describe('Node termination', () => {
  it('taints the node disrupted and excludes it from load balancers', async () => {
    const env = await testEnv();
    const { node } = await oneNode(env);
    await env.client.delete('Node', { name: node.metadata?.name ?? '' });
    await env.termination.reconcile(node.metadata?.name ?? '');
    const tainted = await env.client.get('Node', { name: node.metadata?.name ?? '' });
    expect(
      tainted?.spec?.taints?.some(
        (t) => t.key === Taints.Disrupted.key && t.effect === 'NoSchedule',
      ),
    ).toBe(true);
    expect(tainted?.metadata?.labels?.[Labels.ExcludeFromExternalLoadBalancers]).toBe('karpenter');
  });

  it('deletes the NodeClaim of a node deleted directly', async () => {
    const env = await testEnv();
    const { node, claim } = await oneNode(env);
    await env.client.delete('Node', { name: node.metadata?.name ?? '' });
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(
      (await env.client.get('NodeClaim', { name: claim }))?.metadata.deletionTimestamp,
    ).toBeDefined();
  });

  it('evicts in tiers: non-critical pods first, then DaemonSet pods, then critical pods', async () => {
    const env = await testEnv();
    const { node } = await oneNode(env);
    const critical = pod({ name: 'critical' });
    critical.spec!.priorityClassName = 'system-cluster-critical';
    await place(
      env,
      node,
      pod({ name: 'app' }),
      pod({ name: 'daemon', ownerKind: 'DaemonSet' }),
      critical,
    );
    await env.client.delete('Node', { name: node.metadata?.name ?? '' });
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual(['critical', 'daemon']);
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual(['critical']);
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual([]);
  });

  it('does not evict a pod whose PDB allows no disruption', async () => {
    const env = await testEnv();
    const { node } = await oneNode(env);
    await place(env, node, pod({ name: 'db', labels: { app: 'db' } }));
    await env.client.create('PodDisruptionBudget', pdb('db', { app: 'db' }, { maxUnavailable: 0 }));
    await env.client.delete('Node', { name: node.metadata?.name ?? '' });
    const r = await env.termination.reconcile(node.metadata?.name ?? '');
    expect(r.requeueAfter).toBe(1);
    expect(await podNames(env)).toEqual(['db']);
    expect(env.termination.lastDrain.get(node.metadata?.name ?? '')?.blocked).toEqual([
      'default/db',
    ]);
    expect(env.client.events.some((e) => e.reason === 'FailedEviction')).toBe(true);
    // Retries keep honoring the budget.
    env.clock.advance(60);
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual(['db']);
    expect(await env.client.get('Node', { name: node.metadata?.name ?? '' })).toBeDefined();
  });

  it('evicts a PDB-protected pod once the budget allows it', async () => {
    const env = await testEnv();
    const { node } = await oneNode(env);
    await place(env, node, pod({ name: 'web-0', labels: { app: 'web' } }));
    await env.client.create(
      'Pod',
      runningPod(pod({ name: 'web-1', labels: { app: 'web' } }), 'elsewhere'),
    );
    await env.client.create('PodDisruptionBudget', pdb('web', { app: 'web' }, { minAvailable: 2 }));
    await env.client.delete('Node', { name: node.metadata?.name ?? '' });
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual(['web-0', 'web-1']);
    await env.client.create(
      'Pod',
      runningPod(pod({ name: 'web-2', labels: { app: 'web' } }), 'elsewhere'),
    );
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual(['web-1', 'web-2']);
  });

  it('does not evict a pod with do-not-disrupt before the grace period ends', async () => {
    const env = await testEnv();
    const { node } = await oneNode(env);
    const p = pod({ name: 'job' });
    p.metadata!.annotations = { 'karpenter.sh/do-not-disrupt': 'true' };
    await place(env, node, p);
    await env.client.delete('Node', { name: node.metadata?.name ?? '' });
    await env.termination.reconcile(node.metadata?.name ?? '');
    expect(await podNames(env)).toEqual(['job']);
  });

  it('force-deletes pods when the terminationGracePeriod runs out, bypassing the PDB', async () => {
    const env = await testEnv();
    const { node, claim } = await oneNode(env, '2m');
    await place(env, node, pod({ name: 'db', labels: { app: 'db' } }));
    await env.client.create('PodDisruptionBudget', pdb('db', { app: 'db' }, { maxUnavailable: 0 }));
    await env.client.delete('NodeClaim', { name: claim });
    await env.lifecycle.reconcile(claim); // termination timestamp annotation + node deletion
    const name = node.metadata?.name ?? '';
    await env.termination.reconcile(name);
    expect(await podNames(env)).toEqual(['db']);
    env.clock.advance(89); // deadline − 30 s pod grace = 90 s
    await env.termination.reconcile(name);
    expect(await podNames(env)).toEqual(['db']);
    env.clock.advance(2);
    await env.termination.reconcile(name);
    expect(await podNames(env)).toEqual([]);
    expect(env.termination.lastDrain.get(name)?.forceDeleted).toEqual(['default/db']);
  });

  it('waits at least 5 s in Drained=Unknown, then deletes the instance and removes the finalizer', async () => {
    const env = await testEnv();
    const { node, claim } = await oneNode(env);
    const name = node.metadata?.name ?? '';
    await env.client.delete('Node', { name });
    const first = await env.termination.reconcile(name);
    expect(first.requeueAfter).toBe(5);
    expect(
      getCondition((await env.client.get('NodeClaim', { name: claim })) ?? {}, 'Drained')?.status,
    ).toBe('Unknown');
    env.clock.advance(5);
    const second = await env.termination.reconcile(name);
    expect(second.requeueAfter).toBe(5); // cloud delete started
    const nc = await env.client.get('NodeClaim', { name: claim });
    expect(isTrue(nc ?? {}, 'Drained')).toBe(true);
    expect(isTrue(nc ?? {}, 'InstanceTerminating')).toBe(true);
    expect(env.cloud.instances()).toHaveLength(0);
    await env.termination.reconcile(name);
    expect(await env.client.get('Node', { name })).toBeUndefined();
  });

  it('removes the finalizer at once when the node is NotReady and its instance is gone', async () => {
    const env = await testEnv();
    const { node, claim } = await oneNode(env);
    const name = node.metadata?.name ?? '';
    await env.cloud.delete((await env.client.get('NodeClaim', { name: claim }))!);
    const notReady = (await env.client.get('Node', { name }))!;
    notReady.status!.conditions = [{ type: 'Ready', status: 'Unknown' }];
    await env.client.updateStatus('Node', notReady);
    await env.client.delete('Node', { name });
    await env.termination.reconcile(name);
    expect(await env.client.get('Node', { name })).toBeUndefined();
  });

  it('leaves out terminal, mirror and disrupted-tolerating pods from the drain', () => {
    const done = pod({ name: 'done', phase: 'Succeeded' });
    const mirror = pod({ name: 'mirror', ownerKind: 'Node' });
    const tolerant = pod({
      name: 'tolerant',
      tolerations: [{ key: Taints.Disrupted.key, operator: 'Exists' }],
    });
    const app = pod({ name: 'app' });
    expect(
      podsWaitingEviction([done, mirror, tolerant, app], 0).map((p) => p.metadata?.name),
    ).toEqual(['app']);
    expect(drainTier(app)).toBe(0);
  });
});
