/**
 * Stale disruption marks: every disruption pass first removes the
 * `karpenter.sh/disrupted` taint and `DisruptionReason` from nodes that no command holds and
 * that are not going away, which is what a crash between marking and deleting leaves behind.
 */
import type { StatusCondition } from '@karpenter-ts/api';
import { Taints } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import {
  addNode,
  bindPods,
  hasDisruptionReason,
  isTainted,
  reconcileAndValidate,
  unitEnv,
  type UnitEnv,
} from './support.js';

function disruptionReason(env: UnitEnv): StatusCondition {
  return {
    type: 'DisruptionReason',
    status: 'True',
    reason: 'Underutilized',
    message: 'Underutilized',
    lastTransitionTime: new Date(env.clock.now()).toISOString(),
  };
}

/** A node left tainted and marked by a command this process does not know (a crash). */
async function leftBehind(env: UnitEnv, name = 'a'): Promise<void> {
  await addNode(env, {
    name,
    taints: [
      { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
      { ...Taints.Disrupted, timeAdded: new Date(env.clock.now()) },
    ],
    conditions: [disruptionReason(env)],
    consolidatable: false,
  });
}

describe('stale taint cleanup', () => {
  it('untaints a node tainted karpenter.sh/disrupted without a command, and removes its DisruptionReason, on the next pass', async () => {
    const env = await unitEnv();
    await leftBehind(env);
    await env.disruption.reconcile();
    expect(await isTainted(env, 'a')).toBe(false);
    expect(await hasDisruptionReason(env, 'a')).toBe(false);
  });

  it("keeps the node's other taints", async () => {
    const env = await unitEnv();
    await leftBehind(env);
    await env.disruption.reconcile();
    const node = await env.client.get('Node', { name: 'a' });
    expect(node?.spec?.taints).toEqual([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
  });

  it('keeps the taint of a node being deleted (termination put it there)', async () => {
    const env = await unitEnv();
    await leftBehind(env);
    await env.client.delete('Node', { name: 'a' });
    await env.disruption.reconcile();
    expect(await isTainted(env, 'a')).toBe(true);
  });

  it('keeps the taint and DisruptionReason of a node whose NodeClaim is being deleted', async () => {
    const env = await unitEnv();
    await leftBehind(env);
    await env.client.delete('NodeClaim', { name: 'a' });
    await env.disruption.reconcile();
    expect(await isTainted(env, 'a')).toBe(true);
    expect(await hasDisruptionReason(env, 'a')).toBe(true);
  });

  it('keeps the taint of a node marked for deletion in cluster state', async () => {
    const env = await unitEnv();
    await leftBehind(env);
    env.cluster.markForDeletion('a');
    await env.disruption.reconcile();
    expect(await isTainted(env, 'a')).toBe(true);
  });

  it('keeps the marks of a node a command in flight holds', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    await reconcileAndValidate(env);
    expect(env.disruption.queue.commands()).toHaveLength(1);
    await env.disruption.reconcile();
    expect(await isTainted(env, 'a')).toBe(true);
    expect(await hasDisruptionReason(env, 'a')).toBe(true);
  });
});
