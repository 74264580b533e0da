/**
 * Emptiness: every empty, consolidatable candidate the budgets allow
 * goes into one delete command, under every consolidation policy; validated after 15 s.
 */
import { describe, expect, it } from 'vitest';
import {
  addNode,
  bindPods,
  disruptionPool,
  isTainted,
  names,
  skipReason,
  unitEnv,
} from './support.js';

describe('emptiness', () => {
  it('deletes all empty nodes in one command, without replacements', async () => {
    const env = await unitEnv();
    for (const name of ['a', 'b', 'c']) await addNode(env, { name });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('emptiness');
    expect(plan.commands).toHaveLength(1);
    expect(names(plan.commands[0])).toEqual(['a', 'b', 'c']);
    expect(plan.commands[0]?.replacements).toEqual([]);
    expect(plan.commands[0]?.reason).toBe('Empty');
  });

  it('takes only as many empty nodes as the budget allows (2 of 5) and says why it left the rest', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '2' }] })] });
    for (const name of ['a', 'b', 'c', 'd', 'e']) await addNode(env, { name });
    const plan = await env.disruption.plan();
    expect(plan.commands[0]?.candidates).toHaveLength(2);
    const left = ['a', 'b', 'c', 'd', 'e'].filter((n) => !names(plan.commands[0]).includes(n));
    for (const n of left) expect(skipReason(plan, 'emptiness', n)).toMatch(/used up/);
  });

  it('takes the most expensive empty nodes first when the budget is short', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '1' }] })] });
    await addNode(env, { name: 'cheap', instanceType: 'small' });
    await addNode(env, { name: 'dear', instanceType: 'xlarge' });
    const plan = await env.disruption.plan();
    expect(names(plan.commands[0])).toEqual(['dear']);
  });

  it('does nothing when the budget for Empty is 0, naming the budget', async () => {
    const env = await unitEnv({
      pools: [disruptionPool({ budgets: [{ nodes: '0', reasons: ['Empty'] }, { nodes: '100%' }] })],
    });
    await addNode(env, { name: 'a' });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'emptiness', 'a')).toMatch(/budget for Empty in nodepool default is 0/);
  });

  it('includes empty nodes of a WhenEmpty pool', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidationPolicy: 'WhenEmpty' })] });
    await addNode(env, { name: 'a' });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('emptiness');
    expect(names(plan.commands[0])).toEqual(['a']);
  });

  it('excludes nodes of a pool with consolidateAfter: Never', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidateAfter: 'Never' })] });
    await addNode(env, { name: 'a' });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'emptiness', 'a')).toBe('consolidateAfter is Never');
  });

  it('excludes a node whose NodeClaim is not Consolidatable', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', consolidatable: false });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'emptiness', 'a')).toBe('not consolidatable yet');
  });

  it('says when an empty node inside its consolidateAfter becomes consolidatable', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidateAfter: '10m' })] });
    await addNode(env, { name: 'a', consolidatable: false });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    // Initialized at the clock's start (2025-01-01T00:00:00Z), no pod event since.
    expect(skipReason(plan, 'emptiness', 'a')).toBe('consolidatable at 2025-01-01T00:10:00Z');
  });

  it('does not take a node with a pod that must move', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidationPolicy: 'WhenEmpty' })] });
    await addNode(env, { name: 'busy' });
    await addNode(env, { name: 'empty' });
    await bindPods(env, 'busy', 1);
    const plan = await env.disruption.plan();
    expect(names(plan.commands[0])).toEqual(['empty']);
    expect(skipReason(plan, 'emptiness', 'busy')).toBe('not empty');
  });

  it('counts a node with only DaemonSet pods as empty', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await bindPods(env, 'a', 1, { ownerKind: 'DaemonSet' });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('emptiness');
    expect(names(plan.commands[0])).toEqual(['a']);
  });

  it('waits 15 s, then deletes the NodeClaims of the nodes still empty', async () => {
    const env = await unitEnv();
    for (const name of ['a', 'b']) await addNode(env, { name });
    await env.disruption.reconcile();
    expect(names(env.disruption.pendingCommand)).toEqual(['a', 'b']);
    expect(env.disruption.queue.commands()).toHaveLength(0);

    env.clock.advance(14);
    await env.disruption.reconcile();
    expect(env.disruption.queue.commands()).toHaveLength(0);

    env.clock.advance(1);
    await env.disruption.reconcile();
    expect(env.disruption.pendingCommand).toBeUndefined();
    expect(env.disruption.queue.commands()).toHaveLength(1);
    await env.disruption.queue.reconcile();
    for (const name of ['a', 'b']) {
      expect(
        (await env.client.get('NodeClaim', { name }))?.metadata.deletionTimestamp,
      ).toBeDefined();
    }
  });

  it('goes ahead with the nodes still empty after 15 s when one of them got a pod (a partial command)', async () => {
    const env = await unitEnv();
    for (const name of ['a', 'b', 'c']) await addNode(env, { name });
    await env.disruption.reconcile();
    expect(names(env.disruption.pendingCommand)).toEqual(['a', 'b', 'c']);
    await bindPods(env, 'b', 1);
    env.clock.advance(15);
    await env.disruption.reconcile();
    expect(names(env.disruption.queue.commands()[0]?.command)).toEqual(['a', 'c']);
  });

  it('drops a candidate nominated for a pending pod during the 15 s and deletes the rest', async () => {
    const env = await unitEnv();
    for (const name of ['a', 'b']) await addNode(env, { name });
    await env.disruption.reconcile();
    env.cluster.nominate('a', 20);
    env.clock.advance(15);
    await env.disruption.reconcile();
    expect(names(env.disruption.queue.commands()[0]?.command)).toEqual(['b']);
  });

  it('abandons the command when no candidate is left after 15 s', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await env.disruption.reconcile();
    await bindPods(env, 'a', 1);
    env.clock.advance(15);
    await env.disruption.reconcile();
    expect(env.disruption.queue.commands()).toHaveLength(0);
    expect(await isTainted(env, 'a')).toBe(false);
  });
});

describe('a NodePool whose budget blocks emptiness', () => {
  it('gets a DisruptionBlocked event on the NodePool naming the reason, and no command starts', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '0' }] })] });
    await addNode(env, { name: 'a' });
    await env.disruption.reconcile();
    expect(env.disruption.pendingCommand).toBeUndefined();
    const events = env.client.events.filter(
      (e) => e.involved.kind === 'NodePool' && e.reason === 'DisruptionBlocked',
    );
    expect(events.map((e) => e.message)).toContain(
      'No allowed disruptions for disruption reason Empty due to blocking budget',
    );
  });
});
