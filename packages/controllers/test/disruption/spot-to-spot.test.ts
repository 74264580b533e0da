/**
 * Spot-to-spot consolidation (gate SpotToSpotConsolidation): off by
 * default; when on, a single spot node is replaced only when at least 15 spot options are cheaper,
 * and the replacement is limited to the 15 cheapest. Catalog: upstream's fake InstanceTypes(20)
 * (fake-it-i has i+1 cpu; spot and on-demand cost the same, growing with size).
 */
import { Labels } from '@karpenter-ts/api';
import { fakeInstanceTypes } from '@karpenter-ts/cloudprovider';
import { describe, expect, it } from 'vitest';
import { MinInstanceTypesForSpotToSpot } from '../../src/index.js';
import {
  addNode,
  allowedValues,
  bindPods,
  catalogType,
  names,
  replacementTypes,
  skipReason,
  unitEnv,
} from './support.js';

async function spotEnv(spotToSpotConsolidation: boolean) {
  return unitEnv({ instanceTypes: fakeInstanceTypes(20), spotToSpotConsolidation });
}

describe('spot-to-spot consolidation', () => {
  it('is off by default: a spot node is not replaced by a cheaper spot node, and the reason says so', async () => {
    const env = await spotEnv(false);
    await addNode(env, { name: 'a', instanceType: 'fake-it-19', capacityType: 'spot' });
    await bindPods(env, 'a', 1, { requests: { cpu: '100m' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe(
      "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    );
  });

  it('still deletes a spot node whose pods fit elsewhere while the gate is off', async () => {
    const env = await spotEnv(false);
    await addNode(env, { name: 'a', instanceType: 'fake-it-19', capacityType: 'spot' });
    await addNode(env, { name: 'b', instanceType: 'fake-it-19', consolidatable: false });
    await bindPods(env, 'a', 1, { requests: { cpu: '100m' } });
    const plan = await env.disruption.plan();
    expect(names(plan.commands[0])).toEqual(['a']);
    expect(plan.commands[0]?.replacements).toEqual([]);
  });

  it('with the gate on, replaces a spot node that has 19 cheaper options with the 15 cheapest, spot only', async () => {
    const env = await spotEnv(true);
    await addNode(env, { name: 'a', instanceType: 'fake-it-19', capacityType: 'spot' });
    await bindPods(env, 'a', 1, { requests: { cpu: '100m' } });
    const plan = await env.disruption.plan();
    expect(names(plan.commands[0])).toEqual(['a']);
    expect(replacementTypes(plan.commands[0])).toEqual(
      Array.from({ length: MinInstanceTypesForSpotToSpot }, (_, i) => `fake-it-${i}`),
    );
    expect(allowedValues(plan.commands[0], Labels.CapacityType)).toEqual(['spot']);
  });

  it('with the gate on, replaces a spot node with exactly 15 cheaper options', async () => {
    const env = await spotEnv(true);
    await addNode(env, { name: 'a', instanceType: 'fake-it-15', capacityType: 'spot' });
    await bindPods(env, 'a', 1, { requests: { cpu: '100m' } });
    const plan = await env.disruption.plan();
    expect(replacementTypes(plan.commands[0])).toHaveLength(15);
    expect(replacementTypes(plan.commands[0])).not.toContain('fake-it-15');
  });

  it('with the gate on, does not replace a spot node with only 10 cheaper options (it needs 15)', async () => {
    const env = await spotEnv(true);
    await addNode(env, { name: 'a', instanceType: 'fake-it-10', capacityType: 'spot' });
    await bindPods(env, 'a', 1, { requests: { cpu: '100m' } });
    const plan = await env.disruption.plan();
    expect(plan.commands).toEqual([]);
    expect(skipReason(plan, 'single-node-consolidation', 'a')).toBe(
      'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 10',
    );
  });

  it('keeps only options whose worst-case spot price is below the candidate price (as upstream filterByPrice)', async () => {
    // 16 uniform cheap types, and one that is cheapest in test-zone-1 but dearer than the
    // candidate in test-zone-2: a spot launch may land in either zone.
    const cheap = Array.from({ length: 16 }, (_, i) =>
      catalogType(`cheap-${String(i).padStart(2, '0')}`, 4, 0.1 + i * 0.01, {
        offerings: ['test-zone-1', 'test-zone-2'].map((zone) => ({
          zone,
          capacityType: 'spot' as const,
          price: 0.1 + i * 0.01,
        })),
      }),
    );
    const zonal = catalogType('zonal', 4, 0.05, {
      offerings: [
        { zone: 'test-zone-1', capacityType: 'spot', price: 0.05 },
        { zone: 'test-zone-2', capacityType: 'spot', price: 3 },
      ],
    });
    const big = catalogType('big', 16, 2, {
      offerings: [{ zone: 'test-zone-1', capacityType: 'spot', price: 2 }],
    });
    const env = await unitEnv({
      instanceTypes: [...cheap, zonal, big],
      spotToSpotConsolidation: true,
    });
    await addNode(env, { name: 'a', instanceType: 'big', capacityType: 'spot' });
    await bindPods(env, 'a', 1);
    const plan = await env.disruption.plan();
    expect(plan.commands).toHaveLength(1);
    expect(replacementTypes(plan.commands[0])).not.toContain('zonal');
    expect(replacementTypes(plan.commands[0])).toHaveLength(15);
  });

  it('with the gate on, lets multi-node consolidation replace spot nodes without the 15-option rule', async () => {
    const env = await spotEnv(true);
    await addNode(env, { name: 'a', instanceType: 'fake-it-5', capacityType: 'spot' });
    await addNode(env, { name: 'b', instanceType: 'fake-it-5', capacityType: 'spot' });
    await bindPods(env, 'a', 1, { requests: { cpu: '1' } });
    await bindPods(env, 'b', 1, { requests: { cpu: '1' } });
    const plan = await env.disruption.plan();
    expect(plan.method).toBe('multi-node-consolidation');
    expect(names(plan.commands[0])).toEqual(['a', 'b']);
    expect(plan.commands[0]?.replacements).toHaveLength(1);
    expect(replacementTypes(plan.commands[0]).length).toBeLessThan(15);
    expect(allowedValues(plan.commands[0], Labels.CapacityType)).toEqual(['spot']);
  });
});
