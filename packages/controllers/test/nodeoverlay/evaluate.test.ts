import {
  fakeInstanceTypes,
  UnevaluatedNodePoolError,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import { describe, expect, it } from 'vitest';
import { evaluateNodeOverlays, orderByWeight } from '../../src/index.js';
import { readyNodePool } from '../helpers.js';
import { instanceType, overlay } from './builders.js';

const types = fakeInstanceTypes(3); // fake-it-0..2, five offerings each
const pool = readyNodePool({ name: 'default' });
const byPool = new Map<string, readonly InstanceType[]>([['default', types]]);

function applied(overlays: Parameters<typeof evaluateNodeOverlays>[0], poolName = 'default') {
  const result = evaluateNodeOverlays(overlays, [pool], byPool);
  return { result, types: result.evaluation.apply(poolName, types) };
}

function prices(it: InstanceType | undefined): number[] {
  return (it?.offerings ?? []).map((o) => Number(o.price.toFixed(6)));
}

describe('NodeOverlay evaluation', () => {
  it('sets the price of every offering of the instance types it selects, and only those', () => {
    const { types: out, result } = applied([
      overlay('cheap', { requirements: instanceType('fake-it-1'), price: '0.01' }),
    ]);
    expect(result.refused.size).toBe(0);
    expect(prices(out[1])).toEqual([0.01, 0.01, 0.01, 0.01, 0.01]);
    expect(out[1]?.offerings.every((o) => o.priceOverlayApplied === true)).toBe(true);
    expect(out[0]).toBe(types[0]); // untouched types are the provider's own objects
    expect(out[2]).toBe(types[2]);
  });

  it('selects offerings by their requirements: a spot-only overlay leaves on-demand prices', () => {
    const base = types[0]?.offerings[0]?.price ?? 0;
    const { types: out } = applied([
      overlay('spot-discount', {
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
        priceAdjustment: '-50%',
      }),
    ]);
    const half = Number((base / 2).toFixed(6));
    const full = Number(base.toFixed(6));
    expect(prices(out[0])).toEqual([half, half, full, full, full]);
  });

  it('selects by NodePool: an overlay for another pool changes nothing here', () => {
    const { types: out } = applied([
      overlay('gpu-pool-only', {
        requirements: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['gpu'] }],
        price: '0.01',
      }),
    ]);
    expect(out).toEqual(types);
  });

  it('adds capacity: the resource appears in capacity and allocatable, other resources kept', () => {
    const { types: out } = applied([
      overlay('license', {
        requirements: instanceType('fake-it-2'),
        capacity: { 'example.com/license': '2' },
      }),
    ]);
    expect(out[2]?.capacity['example.com/license']).toBe(2);
    expect(out[2]?.allocatable()['example.com/license']).toBe(2);
    expect(out[2]?.allocatable().cpu).toBe(types[2]?.allocatable().cpu);
    expect(out[2]?.capacityOverlayApplied).toBe(true);
    expect(out[1]?.capacity['example.com/license']).toBeUndefined();
  });

  it('orders by weight, highest first, then by name descending (upstream sort)', () => {
    const names = orderByWeight([
      overlay('a', { weight: 10 }),
      overlay('b', {}),
      overlay('c', { weight: 10 }),
      overlay('d', { weight: 50 }),
    ]).map((o) => o.metadata.name);
    expect(names).toEqual(['d', 'c', 'a', 'b']);
  });

  it('the higher-weight overlay wins the price; the lower one applies where the higher does not select', () => {
    const { types: out, result } = applied([
      overlay('everything', { price: '0.50', weight: 1 }),
      overlay('it-1', { requirements: instanceType('fake-it-1'), price: '0.01', weight: 100 }),
    ]);
    expect(result.refused.size).toBe(0);
    expect(prices(out[1])[0]).toBe(0.01);
    expect(prices(out[0])[0]).toBe(0.5);
  });

  it('capacity merges across weights: each resource keeps the higher-weight value', () => {
    const { types: out, result } = applied([
      overlay('low', { capacity: { 'example.com/a': '1', 'example.com/b': '1' }, weight: 1 }),
      overlay('high', { capacity: { 'example.com/a': '5' }, weight: 9 }),
    ]);
    expect(result.refused.size).toBe(0);
    expect(out[0]?.capacity['example.com/a']).toBe(5);
    expect(out[0]?.capacity['example.com/b']).toBe(1);
  });

  it('equal weights pricing the same offering conflict: the second in order is refused everywhere, the first applies', () => {
    const { types: out, result } = applied([
      overlay('alpha', { requirements: instanceType('fake-it-0'), price: '0.02', weight: 5 }),
      overlay('beta', { price: '0.03', weight: 5 }),
    ]);
    // Order is name descending: beta first, so alpha is the one that conflicts.
    expect(result.order).toEqual(['beta', 'alpha']);
    expect(result.refused.get('alpha')).toEqual({
      reason: 'Conflict',
      message:
        'price conflicts with NodeOverlay beta (same weight 5) on nodepool default, instance type fake-it-0',
    });
    expect(result.refused.has('beta')).toBe(false);
    expect(prices(out[0])[0]).toBe(0.03);
  });

  it('a conflicting overlay applies nowhere, also where it did not conflict', () => {
    const { types: out, result } = applied([
      overlay('z-first', {
        requirements: instanceType('fake-it-0'),
        capacity: { 'example.com/x': '1' },
        weight: 3,
      }),
      overlay('a-second', { capacity: { 'example.com/x': '2', 'example.com/y': '1' }, weight: 3 }),
    ]);
    expect(result.refused.get('a-second')?.reason).toBe('Conflict');
    expect(result.refused.get('a-second')?.message).toMatch(
      /capacity example.com\/x conflicts with NodeOverlay z-first/,
    );
    expect(out[1]?.capacity['example.com/y']).toBeUndefined();
    expect(out[0]?.capacity['example.com/x']).toBe(1);
  });

  it('equal weights on different resources, or price and capacity, do not conflict', () => {
    const { result } = applied([
      overlay('gpu', { capacity: { 'example.com/gpu': '1' }, weight: 2 }),
      overlay('license', { capacity: { 'example.com/license': '1' }, weight: 2 }),
      overlay('price', { price: '0.1', weight: 2 }),
    ]);
    expect(result.refused.size).toBe(0);
  });

  it('an overlay failing runtime validation is refused and applies nowhere', () => {
    const { types: out, result } = applied([
      overlay('bad', {
        requirements: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['x'] }],
        price: '0.01',
      }),
    ]);
    expect(result.refused.get('bad')?.reason).toBe('RuntimeValidation');
    expect(result.refused.get('bad')?.message).toMatch(/spec.requirements\[0\]/);
    expect(out).toEqual(types);
  });

  it('a pool the evaluation did not cover is refused with UnevaluatedNodePoolError', () => {
    const { result } = applied([]);
    expect(() => result.evaluation.apply('other', types)).toThrow(UnevaluatedNodePoolError);
  });
});
