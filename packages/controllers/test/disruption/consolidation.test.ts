/**
 * Single-node consolidation: remove a node whose pods fit
 * elsewhere, or replace it with exactly one strictly cheaper node; otherwise do nothing and say
 * why. Prices (sizedCatalog): small 0.2, medium 0.4, large 0.8, xlarge 1.6 USD/h on-demand,
 * spot at 0.7×.
 */
import { Labels, NodeClaimConditions, Taints } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { getCondition } from '../../src/index.js';
import {
  addNode,
  allowedValues,
  bindPods,
  disruptionPool,
  eventsFor,
  isTainted,
  names,
  reconcileAndValidate,
  replacementTypes,
  sizedCatalog,
  skipReason,
  unitEnv,
} from './support.js';

const onDemandOnly = [{ key: Labels.CapacityType, operator: 'In' as const, values: ['on-demand'] }];

describe('single-node consolidation: delete', () => {
  it('deletes a node whose pods fit on another node, launching nothing', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b', consolidatable: false });
    await bindPods(env, 'a', 1);
    await bindPods(env, 'b', 1);
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('single-node-consolidation');
    expect(names(plan.commands[0])).toEqual(['a']);
    expect(plan.commands[0]?.replacements).toEqual([]);
    expect(plan.commands[0]?.reason).toBe('Underutilized');
  });

  it('does not delete a node whose pod cannot schedule anywhere else', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b', consolidatable: false });
    await bindPods(env, 'a', 1, { nodeSelector: { [Labels.Hostname]: 'a' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toMatch(/would not schedule/);
  });

  it('does not count on a node that is not initialized yet to take the pods', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'a', instanceType: 'small' });
    await addNode(env, { name: 'new', initialized: false });
    await bindPods(env, 'a', 1, { requests: { cpu: '1500m' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toMatch(
      /would schedule against uninitialized node new/,
    );
  });
});

describe('single-node consolidation: replace', () => {
  it('replaces an on-demand xlarge (1.6) with one node of the strictly cheaper types: small, medium, large', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('single-node-consolidation');
    expect(names(plan.commands[0])).toEqual(['a']);
    expect(plan.commands[0]?.replacements).toHaveLength(1);
    expect(replacementTypes(plan.commands[0])).toEqual(['small', 'medium', 'large']);
    expect(plan.commands[0]?.savings).toBeCloseTo(1.6 - 0.2);
  });

  it('keeps an on-demand replacement on-demand when the pool allows only on-demand', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(allowedValues(plan.commands[0], Labels.CapacityType)).toEqual(['on-demand']);
  });

  it('restricts the replacement of an on-demand node to spot when it could be spot or on-demand (the price filter assumed spot)', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', instanceType: 'xlarge', capacityType: 'on-demand' });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.commands[0]?.replacements).toHaveLength(1);
    expect(allowedValues(plan.commands[0], Labels.CapacityType)).toEqual(['spot']);
    // xlarge stays an option: as spot (1.12) it is cheaper than the on-demand xlarge (1.6).
    expect(replacementTypes(plan.commands[0])).toEqual(['small', 'medium', 'large', 'xlarge']);
  });

  it('does nothing when no replacement is strictly cheaper (a full small node stays)', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'a', instanceType: 'small' });
    await bindPods(env, 'a', 1, { requests: { cpu: '1500m' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe(
      "can't replace with a cheaper node",
    );
  });

  it('does nothing when an equally priced type is the only option (price must be strictly lower)', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'a', instanceType: 'medium' });
    await bindPods(env, 'a', 1, { requests: { cpu: '3' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
  });

  it('does nothing when removing the node would need 2 new nodes', async () => {
    // Only xlarge holds both 7-cpu pods, and it is out of capacity: they would need two larges.
    const env = await unitEnv({ instanceTypes: sizedCatalog({ unavailable: ['xlarge'] }) });
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 2, { requests: { cpu: '7' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe(
      "can't remove without creating 2 nodes",
    );
  });
});

describe('consolidation filters', () => {
  it('refuses a node that is not empty in a WhenEmpty pool', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidationPolicy: 'WhenEmpty' })] });
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b', consolidatable: false });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe('WhenEmpty and not empty');
  });

  it('refuses a node of a pool with consolidateAfter: Never', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidateAfter: 'Never' })] });
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe('consolidateAfter is Never');
  });

  it('waits for Consolidatable, saying when it will be (consolidateAfter 10m after initialization)', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ consolidateAfter: '10m' })] });
    await addNode(env, { name: 'a', instanceType: 'xlarge', consolidatable: false });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe(
      'consolidatable at 2025-01-01T00:10:00Z',
    );
  });

  it('leaves empty nodes to emptiness', async () => {
    const env = await unitEnv({
      pools: [disruptionPool({ budgets: [{ nodes: '0', reasons: ['Empty'] }, { nodes: '100%' }] })],
    });
    await addNode(env, { name: 'a' });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe('empty (emptiness removes it)');
  });

  it('respects the Underutilized budget', async () => {
    const env = await unitEnv({
      pools: [
        disruptionPool({
          budgets: [{ nodes: '0', reasons: ['Underutilized'] }, { nodes: '100%' }],
        }),
      ],
    });
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toMatch(
      /budget for Underutilized in nodepool default is 0/,
    );
  });
});

describe('a consolidation command, carried out', () => {
  it('taints the candidate, sets DisruptionReason=Underutilized and launches the spot replacement after the 15 s validation', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    await env.disruption.reconcile();
    expect(names(env.disruption.pendingCommand)).toEqual(['a']);
    expect(await isTainted(env, 'a')).toBe(false);

    env.clock.advance(15);
    await env.disruption.reconcile();
    const node = await env.client.get('Node', { name: 'a' });
    expect(node?.spec?.taints).toContainEqual(expect.objectContaining(Taints.Disrupted));
    const nc = await env.client.get('NodeClaim', { name: 'a' });
    expect(nc && getCondition(nc, NodeClaimConditions.DisruptionReason)?.reason).toBe(
      'Underutilized',
    );
    expect(env.cluster.node('a')?.markedForDeletion).toBe(true);
    const replacement = (await env.client.list('NodeClaim')).find((c) => c.metadata.name !== 'a');
    expect(replacement?.spec.requirements).toContainEqual(
      expect.objectContaining({ key: Labels.CapacityType, operator: 'In', values: ['spot'] }),
    );
    expect(eventsFor(env, 'a', 'Disrupted')).toHaveLength(1);
  });

  it('tries the candidate with the highest savings ratio first (price per unit of disruption)', async () => {
    const env = await unitEnv({
      pools: [disruptionPool({ budgets: [{ nodes: '1' }], requirements: onDemandOnly })],
    });
    await addNode(env, { name: 'busy-xlarge', instanceType: 'xlarge' });
    await addNode(env, { name: 'idle-large', instanceType: 'large' });
    await bindPods(env, 'busy-xlarge', 12, { requests: { cpu: '100m' } });
    await bindPods(env, 'idle-large', 1, { requests: { cpu: '100m' } });
    // Ratios: 1.6 / 13 ≈ 0.12 against 0.8 / 2 = 0.4; the large goes first.
    await reconcileAndValidate(env);
    expect(names(env.disruption.queue.commands()[0]?.command)).toEqual(['idle-large']);
  });
});
