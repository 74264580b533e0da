/**
 * Command validation: 15 s after a consolidation command is
 * computed the cluster is read again; if the command no longer holds it is rejected with a
 * `ConsolidationRejected` event and nothing is started.
 */
import { Annotations, Labels, NodeClaimConditions } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { ValidationDelaySeconds } from '../../src/index.js';
import {
  addNode,
  bindPods,
  disruptionPool,
  eventsFor,
  isTainted,
  names,
  unitEnv,
  type UnitEnv,
} from './support.js';

/** `a` (large, one 1-cpu pod) can go: its pod fits on `b` (medium, 1 cpu used, not a candidate). */
async function deletableA(pools = [disruptionPool()]): Promise<UnitEnv> {
  const env = await unitEnv({ pools });
  await addNode(env, { name: 'a' });
  await addNode(env, { name: 'b', instanceType: 'medium', consolidatable: false });
  await bindPods(env, 'a', 1);
  await bindPods(env, 'b', 1);
  await env.disruption.reconcile();
  expect(names(env.disruption.pendingCommand)).toEqual(['a']);
  expect(env.disruption.pendingCommand?.replacements).toEqual([]);
  return env;
}

async function validate(env: UnitEnv): Promise<void> {
  env.clock.advance(ValidationDelaySeconds);
  await env.disruption.reconcile();
}

async function expectRejected(env: UnitEnv, why: RegExp): Promise<void> {
  expect(env.disruption.pendingCommand).toBeUndefined();
  expect(env.disruption.queue.commands()).toHaveLength(0);
  expect(await isTainted(env, 'a')).toBe(false);
  const events = eventsFor(env, 'a', 'ConsolidationRejected');
  expect(events).toHaveLength(1);
  expect(events[0]?.message).toMatch(why);
}

describe('validation after 15 s', () => {
  it('starts the command when nothing changed', async () => {
    const env = await deletableA();
    await validate(env);
    expect(names(env.disruption.queue.commands()[0]?.command)).toEqual(['a']);
    expect(await isTainted(env, 'a')).toBe(true);
    expect(eventsFor(env, 'a', 'ConsolidationRejected')).toHaveLength(0);
  });

  it('does not act before the 15 s are up', async () => {
    const env = await deletableA();
    env.clock.advance(ValidationDelaySeconds - 1);
    await env.disruption.reconcile();
    expect(env.disruption.pendingCommand).toBeDefined();
    expect(env.disruption.queue.commands()).toHaveLength(0);
  });

  it('rejects the command when a pod added meanwhile takes the room its pods needed', async () => {
    const env = await deletableA();
    await bindPods(env, 'b', 1, { requests: { cpu: '2500m' } });
    await validate(env);
    await expectRejected(env, /now needs 1 new node\(s\), not 0/);
  });

  it('rejects the command when the candidate is no longer Consolidatable (a pod event)', async () => {
    const env = await deletableA();
    const nc = await env.client.get('NodeClaim', { name: 'a' });
    if (nc?.status?.conditions === undefined) throw new Error('no nodeclaim');
    nc.status.conditions = nc.status.conditions.filter(
      (c) => c.type !== NodeClaimConditions.Consolidatable,
    );
    await env.client.updateStatus('NodeClaim', nc);
    await validate(env);
    // The condition is gone and its wait is over: the controller is about to set it again.
    await expectRejected(env, /node a: not consolidatable yet/);
  });

  it('rejects the command when the candidate was nominated for a pending pod meanwhile', async () => {
    const env = await deletableA();
    env.clock.advance(ValidationDelaySeconds - 5);
    env.cluster.nominate('a', 20);
    await validate(env);
    await expectRejected(env, /node a: it is no longer a candidate/);
  });

  it('rejects the command when a pod on the candidate got do-not-disrupt meanwhile', async () => {
    const env = await deletableA();
    await bindPods(env, 'a', 1, {
      requests: { cpu: '100m' },
      annotations: { [Annotations.DoNotDisrupt]: 'true' },
    });
    await validate(env);
    await expectRejected(env, /no longer a candidate/);
  });

  it('rejects the command when the budget no longer allows it (another node went NotReady)', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '1' }] })] });
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b', instanceType: 'medium', consolidatable: false });
    await bindPods(env, 'a', 1);
    await env.disruption.reconcile();
    expect(names(env.disruption.pendingCommand)).toEqual(['a']);
    const b = await env.client.get('Node', { name: 'b' });
    if (b?.status === undefined) throw new Error('no node');
    await env.client.updateStatus('Node', {
      ...b,
      status: { ...b.status, conditions: [{ type: 'Ready', status: 'False' }] },
    });
    await validate(env);
    await expectRejected(env, /disruption budget of nodepool default no longer allows it/);
  });

  it("rejects a replacement whose instance types are no longer all options (the pool's requirements changed)", async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    await env.disruption.reconcile();
    expect(env.disruption.pendingCommand?.replacements[0]?.instanceTypeOptions[0]?.name).toBe(
      'small',
    );
    const pool = await env.client.get('NodePool', { name: 'default' });
    if (pool === undefined) throw new Error('no pool');
    pool.spec.template.spec.requirements = [
      { key: Labels.InstanceType, operator: 'NotIn', values: ['small'] },
    ];
    await env.client.update('NodePool', pool);
    await validate(env);
    await expectRejected(env, /instance type small is no longer an option/);
  });

  it('computes afresh on the pass after a rejection', async () => {
    const env = await deletableA();
    await bindPods(env, 'b', 1, { requests: { cpu: '2500m' } });
    await validate(env);
    await env.disruption.reconcile();
    // a (0.8) can still be replaced by a cheaper node for its 1-cpu pod.
    expect(names(env.disruption.pendingCommand)).toEqual(['a']);
    expect(env.disruption.pendingCommand?.replacements).toHaveLength(1);
  });
});
