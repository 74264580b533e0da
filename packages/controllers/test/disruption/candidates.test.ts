/**
 * Disruption candidates: which nodes a disruption method
 * may look at, and why the others are not candidates.
 */
import { Annotations } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { buildCandidates, evictionCost } from '../../src/index.js';
import { pdb } from '../helpers.js';
import {
  addNode,
  bindPods,
  candidateContext,
  candidates,
  disruptionPool,
  eventsFor,
  unitEnv,
} from './support.js';

const HOUR = 3600;

describe('node filters', () => {
  it('takes an initialized node with a NodeClaim, a pool and a known instance type', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('leaves out a node that is not initialized', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', initialized: false });
    expect((await candidates(env)).not).toEqual({ a: 'not initialized' });
  });

  it('leaves out a node nominated for a pending pod, until the nomination lapses', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    env.cluster.nominate('a', 20);
    expect((await candidates(env)).not.a).toMatch(/nominated/);
    env.clock.advance(20);
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('leaves out a node whose NodeClaim is being deleted', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await env.client.delete('NodeClaim', { name: 'a' });
    expect((await candidates(env)).not.a).toMatch(/being deleted/);
  });

  it('leaves out a node whose Node is being deleted', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await env.client.delete('Node', { name: 'a' });
    expect((await candidates(env)).not.a).toMatch(/being deleted/);
  });

  it('leaves out a node marked for deletion in cluster state', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    env.cluster.markForDeletion('a');
    expect((await candidates(env)).not.a).toMatch(/being deleted/);
  });

  it('leaves out a node an orchestration command already holds', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b' });
    const ctx = await candidateContext(env);
    const { candidates: found, notCandidates } = buildCandidates(
      env.cluster.nodes(),
      { ...ctx, queued: new Set(['a']) },
      'graceful',
    );
    expect(found.map((c) => c.name)).toEqual(['b']);
    expect(notCandidates).toEqual([
      expect.objectContaining({ name: 'a', reason: 'already being disrupted' }),
    ]);
  });

  it('leaves out a node annotated karpenter.sh/do-not-disrupt: "true", as a user block', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', nodeAnnotations: { [Annotations.DoNotDisrupt]: 'true' } });
    const result = buildCandidates(env.cluster.nodes(), await candidateContext(env), 'graceful');
    expect(result.candidates).toEqual([]);
    expect(result.notCandidates[0]?.reason).toMatch(/do-not-disrupt/);
    expect(result.notCandidates[0]?.blocked).toBe(true);
  });

  it('takes a node whose do-not-disrupt annotation is anything but "true"', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', nodeAnnotations: { [Annotations.DoNotDisrupt]: 'false' } });
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('records a DisruptionBlocked event for a user block when the controller runs', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', nodeAnnotations: { [Annotations.DoNotDisrupt]: 'true' } });
    await env.disruption.reconcile();
    expect(eventsFor(env, 'a', 'DisruptionBlocked')).toHaveLength(1);
  });

  it('leaves out a node whose NodePool is gone or not Ready', async () => {
    const env = await unitEnv({
      pools: [disruptionPool({ name: 'default' }), disruptionPool({ name: 'other' })],
    });
    await addNode(env, { name: 'a', pool: 'other' });
    const pool = await env.client.get('NodePool', { name: 'other' });
    if (pool === undefined) throw new Error('no pool');
    await env.client.updateStatus('NodePool', { ...pool, status: { conditions: [] } });
    expect((await candidates(env)).not.a).toMatch(/nodepool other not found or not ready/);
  });
});

describe('pod filters', () => {
  it('leaves out a node with a pod annotated do-not-disrupt: "true"', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: 'true' } });
    expect((await candidates(env)).not.a).toMatch(/has karpenter.sh\/do-not-disrupt/);
  });

  it('leaves out a node with a pod whose do-not-disrupt duration (1h) is still running 30 min after it started', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: '1h' } });
    env.clock.advance(HOUR / 2);
    expect((await candidates(env)).not.a).toMatch(/do-not-disrupt/);
  });

  it('takes the node once the pod do-not-disrupt duration (1h) has elapsed since the pod started', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: '1h' } });
    env.clock.advance(HOUR);
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('reads a pod do-not-disrupt duration as a Go duration: "1.5h" still runs after 80 min', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: '1.5h' } });
    env.clock.advance(80 * 60);
    expect((await candidates(env)).not.a).toMatch(/do-not-disrupt/);
  });

  it('ignores an unreadable do-not-disrupt value on a pod', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: 'soon' } });
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('leaves out a node with a DaemonSet pod annotated do-not-disrupt: "true" (every active pod counts, as upstream)', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, {
      ownerKind: 'DaemonSet',
      annotations: { [Annotations.DoNotDisrupt]: 'true' },
    });
    expect((await candidates(env)).not.a).toMatch(/do-not-disrupt/);
  });

  it('leaves out a node with a pod whose PDB allows 0 disruptions', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 2, { labels: { app: 'web' } });
    await env.client.create(
      'PodDisruptionBudget',
      pdb('web', { app: 'web' }, { maxUnavailable: 0 }),
    );
    expect((await candidates(env)).not.a).toBe('pdb default/web prevents pod evictions');
  });

  it('takes a node whose pods PDB still allows a disruption', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 2, { labels: { app: 'web' } });
    await env.client.create(
      'PodDisruptionBudget',
      pdb('web', { app: 'web' }, { maxUnavailable: 1 }),
    );
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('leaves out a node with a pod selected by two PDBs (the Eviction API refuses such a pod)', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { labels: { app: 'web', tier: 'front' } });
    await env.client.create(
      'PodDisruptionBudget',
      pdb('web', { app: 'web' }, { maxUnavailable: 5 }),
    );
    await env.client.create(
      'PodDisruptionBudget',
      pdb('front', { tier: 'front' }, { maxUnavailable: 5 }),
    );
    expect((await candidates(env)).not.a).toMatch(/more than one PodDisruptionBudget/);
  });

  it('takes a node whose only PDB-blocked pod is unhealthy under unhealthyPodEvictionPolicy AlwaysAllow', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { labels: { app: 'web' }, ready: false });
    const budget = pdb('web', { app: 'web' }, { minAvailable: 1 });
    budget.spec = { ...budget.spec, unhealthyPodEvictionPolicy: 'AlwaysAllow' };
    await env.client.create('PodDisruptionBudget', budget);
    expect((await candidates(env)).names).toEqual(['a']);
  });

  it('still leaves that node out when the PDB has the default unhealthy-pod policy', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { labels: { app: 'web' }, ready: false });
    await env.client.create('PodDisruptionBudget', pdb('web', { app: 'web' }, { minAvailable: 1 }));
    expect((await candidates(env)).not.a).toMatch(/prevents pod evictions/);
  });

  it('leaves out a node with a DaemonSet pod whose PDB allows 0 disruptions (the drain evicts DaemonSet pods too)', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { ownerKind: 'DaemonSet', labels: { app: 'agent' } });
    await env.client.create(
      'PodDisruptionBudget',
      pdb('agent', { app: 'agent' }, { maxUnavailable: 0 }),
    );
    expect((await candidates(env)).not.a).toMatch(/prevents pod evictions/);
  });
});

describe('the eventual class (drift) under a terminationGracePeriod', () => {
  it('takes a node with a do-not-disrupt pod for drift when its NodeClaim has a terminationGracePeriod', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: true, terminationGracePeriod: '1h' });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: 'true' } });
    expect((await candidates(env, 'eventual')).names).toEqual(['a']);
    expect((await candidates(env, 'graceful')).not.a).toMatch(/do-not-disrupt/);
  });

  it('takes a node whose PDB allows 0 disruptions for drift when its NodeClaim has a terminationGracePeriod', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: true, terminationGracePeriod: '1h' });
    await bindPods(env, 'a', 1, { labels: { app: 'web' } });
    await env.client.create(
      'PodDisruptionBudget',
      pdb('web', { app: 'web' }, { maxUnavailable: 0 }),
    );
    expect((await candidates(env, 'eventual')).names).toEqual(['a']);
  });

  it('does not bypass the pod blocks for drift without a terminationGracePeriod', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', drifted: true });
    await bindPods(env, 'a', 1, { annotations: { [Annotations.DoNotDisrupt]: 'true' } });
    expect((await candidates(env, 'eventual')).not.a).toMatch(/do-not-disrupt/);
  });

  it('does not bypass the node do-not-disrupt annotation even under a terminationGracePeriod', async () => {
    const env = await unitEnv();
    await addNode(env, {
      name: 'a',
      drifted: true,
      terminationGracePeriod: '1h',
      nodeAnnotations: { [Annotations.DoNotDisrupt]: 'true' },
    });
    expect((await candidates(env, 'eventual')).not.a).toMatch(
      /node has karpenter.sh\/do-not-disrupt/,
    );
  });
});

describe('candidate data', () => {
  it('prices a node at the offering of its zone and capacity type (spot large = 0.56)', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', instanceType: 'large', capacityType: 'spot' });
    const [c] = buildCandidates(
      env.cluster.nodes(),
      await candidateContext(env),
      'graceful',
    ).candidates;
    expect(c?.price).toBeCloseTo(0.56);
    expect(c?.instanceType?.name).toBe('large');
    expect(c?.zone).toBe('test-zone-1');
    expect(c?.capacityType).toBe('spot');
  });

  it('counts pods that must move, not DaemonSet pods, and a disruption cost of 1 + Σ eviction costs', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 2);
    await bindPods(env, 'a', 1, { ownerKind: 'DaemonSet' });
    const [c] = buildCandidates(
      env.cluster.nodes(),
      await candidateContext(env),
      'graceful',
    ).candidates;
    expect(c?.reschedulablePods).toHaveLength(2);
    expect(c?.disruptionCost).toBe(3);
  });

  it('computes the eviction cost as clamp(1 + deletion-cost/2^27 + priority/2^25, −10, 10)', () => {
    const withCost = (deletionCost: string | undefined, priority: number | undefined) =>
      evictionCost({
        metadata: {
          name: 'p',
          ...(deletionCost !== undefined
            ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': deletionCost } }
            : {}),
        },
        spec: { containers: [], ...(priority !== undefined ? { priority } : {}) },
      });
    expect(withCost(undefined, undefined)).toBe(1);
    expect(withCost(String(2 ** 27), undefined)).toBe(2);
    expect(withCost(undefined, 2 ** 25)).toBe(2);
    expect(withCost(undefined, 2 ** 30)).toBe(10);
    expect(withCost(String(-(2 ** 31)), undefined)).toBe(-10);
  });
});
