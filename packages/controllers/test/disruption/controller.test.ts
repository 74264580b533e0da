/**
 * The disruption loop: methods in upstream's order
 * (emptiness, drift, multi-node, single-node consolidation), the first that yields a command
 * ends the pass; 10 s polling; synced state required; emptiness and consolidation skip an
 * unchanged cluster for up to 5 minutes.
 */
import { Labels } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import {
  ConsolidationStateRefreshSeconds,
  DisruptionController,
  DisruptionPollSeconds,
  type MethodName,
} from '../../src/index.js';
import { addNode, bindPods, disruptionPool, eventsFor, names, unitEnv } from './support.js';

describe('the disruption loop', () => {
  it('tries emptiness first: an empty node goes before an underutilized one', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'empty' });
    await addNode(env, { name: 'idle', instanceType: 'xlarge' });
    await bindPods(env, 'idle', 1);
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('emptiness');
    expect(names(plan.commands[0])).toEqual(['empty']);
  });

  it('tries drift before consolidation', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'drifted', drifted: true, instanceType: 'medium' });
    await addNode(env, { name: 'idle', instanceType: 'xlarge' });
    await bindPods(env, 'drifted', 1, { requests: { cpu: '3' } });
    await bindPods(env, 'idle', 1);
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('drift');
    expect(names(plan.commands[0])).toEqual(['drifted']);
  });

  it('polls every 10 s when there is nothing to do', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'busy', instanceType: 'small', consolidatable: false });
    expect(await env.disruption.reconcile()).toEqual({ requeueAfter: DisruptionPollSeconds });
  });

  it('waits for cluster state to be synced (a NodeClaim is launching), retrying in 1 s', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await env.client.create('NodeClaim', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'launching', labels: { 'karpenter.sh/nodepool': 'default' } },
      spec: {
        requirements: [],
        nodeClassRef: { group: 'karpenter.test.sh', kind: 'TestNodeClass', name: 'default' },
      },
    });
    expect(await env.disruption.reconcile()).toEqual({ requeueAfter: 1 });
    expect(env.disruption.pendingCommand).toBeUndefined();
  });

  it('does not re-run consolidation on an unchanged cluster, but does after 5 minutes or a change', async () => {
    const env = await unitEnv({
      pools: [
        disruptionPool({
          requirements: [{ key: Labels.CapacityType, operator: 'In', values: ['on-demand'] }],
        }),
      ],
    });
    await addNode(env, { name: 'full', instanceType: 'small' });
    await bindPods(env, 'full', 1, { requests: { cpu: '1500m' } });
    const evaluated: MethodName[] = [];
    const controller = new DisruptionController({
      client: env.client,
      cluster: env.cluster,
      provisioner: env.provisioner,
      clock: env.clock,
      observer: {
        evaluated: (method) => {
          if (method === 'single-node-consolidation') evaluated.push(method);
        },
      },
    });
    expect(await controller.reconcile()).toEqual({ requeueAfter: DisruptionPollSeconds });
    expect(evaluated).toEqual(['single-node-consolidation']);

    env.clock.advance(DisruptionPollSeconds);
    await controller.reconcile();
    expect(evaluated).toHaveLength(1);

    env.clock.advance(ConsolidationStateRefreshSeconds);
    await controller.reconcile();
    expect(evaluated).toHaveLength(2);

    await bindPods(env, 'full', 1, { requests: { cpu: '100m' } });
    env.clock.advance(DisruptionPollSeconds);
    await controller.reconcile();
    expect(evaluated).toHaveLength(3);
  });

  it('records a DisruptionBlocked event once per 2 minutes, not on every 10 s pass', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    for (let i = 0; i < 12; i++) {
      await env.disruption.reconcile();
      env.clock.advance(DisruptionPollSeconds);
    }
    expect(eventsFor(env, 'a', 'DisruptionBlocked')).toHaveLength(1);
    await env.disruption.reconcile();
    expect(eventsFor(env, 'a', 'DisruptionBlocked')).toHaveLength(2);
  });

  it('records an Unconsolidatable event once per 15 minutes', async () => {
    const env = await unitEnv({
      pools: [
        disruptionPool({
          requirements: [{ key: Labels.CapacityType, operator: 'In', values: ['on-demand'] }],
        }),
      ],
    });
    await addNode(env, { name: 'full', instanceType: 'small' });
    await bindPods(env, 'full', 1, { requests: { cpu: '1500m' } });
    await env.disruption.reconcile();
    expect(eventsFor(env, 'full', 'Unconsolidatable').map((e) => e.message)).toEqual([
      "can't replace with a cheaper node",
    ]);
    env.clock.advance(14 * 60);
    await env.disruption.reconcile();
    expect(eventsFor(env, 'full', 'Unconsolidatable')).toHaveLength(1);
    // The next evaluation of the unchanged cluster is 5 min later (19 min): past the window.
    env.clock.advance(5 * 60);
    await env.disruption.reconcile();
    expect(eventsFor(env, 'full', 'Unconsolidatable')).toHaveLength(2);
  });
});
