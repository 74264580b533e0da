/**
 * Multi-node consolidation: remove several nodes at once, replacing
 * them with at most one node that is cheaper than keeping any candidate of the same type.
 * Prices (sizedCatalog, on-demand): small 0.2, medium 0.4, large 0.8, xlarge 1.6 USD/h.
 */
import { Labels } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { addNode, bindPods, disruptionPool, names, replacementTypes, unitEnv } from './support.js';

const onDemandOnly = [{ key: Labels.CapacityType, operator: 'In' as const, values: ['on-demand'] }];

describe('multi-node consolidation', () => {
  it('replaces three half-idle large nodes with one medium node', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    for (const name of ['a', 'b', 'c']) {
      await addNode(env, { name, instanceType: 'large' });
      await bindPods(env, name, 1);
    }
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('multi-node-consolidation');
    expect(plan.commands).toHaveLength(1);
    expect(names(plan.commands[0])).toEqual(['a', 'b', 'c']);
    expect(plan.commands[0]?.replacements).toHaveLength(1);
    // 3 cpu of pods: medium fits; large would cost as much as keeping one candidate large.
    expect(replacementTypes(plan.commands[0])).toEqual(['medium']);
    expect(plan.commands[0]?.savings).toBeCloseTo(3 * 0.8 - 0.4);
  });

  it('deletes several nodes at once when their pods fit on a node that stays', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b' });
    await addNode(env, { name: 'keep', instanceType: 'xlarge', consolidatable: false });
    await bindPods(env, 'a', 1);
    await bindPods(env, 'b', 1);
    await bindPods(env, 'keep', 1);
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('multi-node-consolidation');
    expect(names(plan.commands[0])).toEqual(['a', 'b']);
    expect(plan.commands[0]?.replacements).toEqual([]);
  });

  it('does not replace a medium and a large node with a new medium (same-type guard): deleting the large alone is better', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'm', instanceType: 'medium' });
    await addNode(env, { name: 'l', instanceType: 'large' });
    await bindPods(env, 'm', 1);
    await bindPods(env, 'l', 1, { requests: { cpu: '2' } });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('single-node-consolidation');
    expect(names(plan.commands[0])).toEqual(['l']);
    expect(plan.commands[0]?.replacements).toEqual([]);
  });

  it('does not replace two large nodes with one new large (it costs as much as keeping one)', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    await addNode(env, { name: 'a', instanceType: 'large' });
    await addNode(env, { name: 'b', instanceType: 'large' });
    // 5 cpu each: no node can take the other's pods, and together they need a large or more.
    await bindPods(env, 'a', 1, { requests: { cpu: '5' } });
    await bindPods(env, 'b', 1, { requests: { cpu: '5' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
  });

  it('takes no more nodes than the budget allows (2 of 4)', async () => {
    const env = await unitEnv({
      pools: [disruptionPool({ requirements: onDemandOnly, budgets: [{ nodes: '2' }] })],
    });
    for (const name of ['a', 'b', 'c', 'd']) {
      await addNode(env, { name, instanceType: 'large' });
      await bindPods(env, name, 1);
    }
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('multi-node-consolidation');
    expect(plan.commands[0]?.candidates).toHaveLength(2);
  });

  it('finds the longest prefix that consolidates: with the full large too, only an xlarge would do, no cheaper than a candidate xlarge', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ requirements: onDemandOnly })] });
    // Two nearly idle xlarges go first (highest savings ratio); the large is nearly full.
    await addNode(env, { name: 'x1', instanceType: 'xlarge' });
    await addNode(env, { name: 'x2', instanceType: 'xlarge' });
    await addNode(env, { name: 'full', instanceType: 'large' });
    await bindPods(env, 'x1', 1);
    await bindPods(env, 'x2', 1);
    await bindPods(env, 'full', 1, { requests: { cpu: '7' } });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('multi-node-consolidation');
    expect(names(plan.commands[0])).toEqual(['x1', 'x2']);
  });
});
