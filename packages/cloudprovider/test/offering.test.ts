import { Requirements } from '@karpenter-ts/scheduling';
import { describe, expect, it } from 'vitest';
import {
  availableCompatibleOfferings,
  cheapestOffering,
  createInstanceType,
  createOffering,
  instanceTypePrice,
  orderByPrice,
  worstCaseLaunchPrice,
} from '../src/index.js';

const spotA = createOffering({ zone: 'zone-a', capacityType: 'spot', price: 0.3 });
const spotB = createOffering({ zone: 'zone-b', capacityType: 'spot', price: 0.4 });
const odA = createOffering({ zone: 'zone-a', capacityType: 'on-demand', price: 1.0 });
const odB = createOffering({ zone: 'zone-b', capacityType: 'on-demand', price: 1.2 });
const spotCheapGone = createOffering({
  zone: 'zone-c',
  capacityType: 'spot',
  price: 0.1,
  available: false,
});
const reserved = createOffering({
  zone: 'zone-a',
  capacityType: 'reserved',
  price: 0.0000001,
  reservationCapacity: 2,
});
const all = [spotA, spotB, odA, odB, spotCheapGone];

const reqs = (labels: Record<string, string[]>) =>
  Requirements.fromNodeSelectorRequirements(
    Object.entries(labels).map(([key, values]) => ({ key, operator: 'In' as const, values })),
  );

describe('createOffering', () => {
  it('pins zone and capacity type as single-valued requirements', () => {
    expect(spotA.requirements.labels()).toEqual({
      'karpenter.sh/capacity-type': 'spot',
      'topology.kubernetes.io/zone': 'zone-a',
    });
    expect(spotA.available).toBe(true);
    expect(reserved.reservationCapacity).toBe(2);
    expect('reservationCapacity' in spotA).toBe(false);
  });

  it('rejects negative prices and empty zones', () => {
    expect(() => createOffering({ zone: 'z', capacityType: 'spot', price: -1 })).toThrow(/price/);
    expect(() => createOffering({ zone: '', capacityType: 'spot', price: 1 })).toThrow(/zone/);
  });
});

describe('cheapestOffering', () => {
  it('picks the cheapest available offering, skipping unavailable ones', () => {
    expect(cheapestOffering(all)).toBe(spotA);
  });

  it('only considers offerings compatible with the requirements', () => {
    expect(cheapestOffering(all, reqs({ 'karpenter.sh/capacity-type': ['on-demand'] }))).toBe(odA);
    expect(cheapestOffering(all, reqs({ 'topology.kubernetes.io/zone': ['zone-b'] }))).toBe(spotB);
  });

  it('accepts requirements that leave zone and capacity type undefined', () => {
    expect(cheapestOffering(all, reqs({ 'kubernetes.io/arch': ['amd64'] }))).toBe(spotA);
  });

  it('returns undefined when nothing matches', () => {
    expect(
      cheapestOffering(all, reqs({ 'topology.kubernetes.io/zone': ['zone-c'] })),
    ).toBeUndefined();
    expect(
      availableCompatibleOfferings(all, reqs({ 'topology.kubernetes.io/zone': ['zone-c'] })),
    ).toEqual([]);
  });
});

describe('worstCaseLaunchPrice', () => {
  it('uses the most expensive spot offering when spot is allowed and no reservation is', () => {
    expect(worstCaseLaunchPrice(all)).toBe(0.4);
  });

  it('prefers reserved over spot over on-demand', () => {
    expect(worstCaseLaunchPrice([...all, reserved])).toBe(0.0000001);
    expect(worstCaseLaunchPrice(all, reqs({ 'karpenter.sh/capacity-type': ['on-demand'] }))).toBe(
      1.2,
    );
  });

  it('is Infinity without a compatible offering', () => {
    expect(worstCaseLaunchPrice(all, reqs({ 'topology.kubernetes.io/zone': ['zone-z'] }))).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe('orderByPrice', () => {
  const make = (name: string, offerings: typeof all) =>
    createInstanceType({
      name,
      requirements: Requirements.fromLabels({ 'node.kubernetes.io/instance-type': name }),
      offerings,
      capacity: { cpu: 1000 },
    });

  it('sorts by cheapest available compatible offering, ties by name, unpriced last', () => {
    const a = make('a', [odA]);
    const b = make('b', [spotA]);
    const c = make('c', [odA]);
    const none = make('none', [spotCheapGone]);
    expect(orderByPrice([none, c, a, b]).map((it) => it.name)).toEqual(['b', 'a', 'c', 'none']);
    expect(instanceTypePrice(none)).toBe(Number.POSITIVE_INFINITY);
    expect(
      orderByPrice([b, a], reqs({ 'karpenter.sh/capacity-type': ['on-demand'] })).map(
        (it) => it.name,
      ),
    ).toEqual(['a', 'b']);
  });
});
