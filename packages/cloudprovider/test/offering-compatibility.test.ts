import { Requirements } from '@karpenter-ts/scheduling';
import { describe, expect, it } from 'vitest';
import { createOffering, isOfferingCompatible, OfferingCompatibility } from '../src/index.js';

const offerings = [
  createOffering({ zone: 'zone-a', capacityType: 'spot', price: 0.3 }),
  createOffering({ zone: 'zone-a', capacityType: 'spot', price: 0.5 }),
  createOffering({ zone: 'zone-b', capacityType: 'on-demand', price: 1.2 }),
  createOffering({
    zone: 'zone-c',
    capacityType: 'reserved',
    price: 0.1,
    labels: { 'example.com/reservation': 'r-1' },
  }),
];

const claims: Record<string, Requirements> = {
  'any zone, spot': Requirements.fromLabels({ 'karpenter.sh/capacity-type': 'spot' }),
  'zone-b only': Requirements.fromNodeSelectorRequirements([
    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-b'] },
  ]),
  'not zone-a': Requirements.fromNodeSelectorRequirements([
    { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['zone-a'] },
  ]),
  unconstrained: new Requirements(),
};

describe('OfferingCompatibility', () => {
  for (const [name, requirements] of Object.entries(claims)) {
    it(`answers as isOfferingCompatible for every offering: ${name}`, () => {
      const compatibility = new OfferingCompatibility(requirements);
      // Twice: the second answers come from what the first remembered.
      for (let round = 0; round < 2; round++)
        for (const o of offerings)
          expect(compatibility.compatible(o)).toBe(isOfferingCompatible(o, requirements));
    });
  }

  it('honours the keys it is told may stay undefined (a reservation label the claim leaves out)', () => {
    const reserved = offerings[3]!;
    const requirements = claims.unconstrained!;
    expect(new OfferingCompatibility(requirements, new Set()).compatible(reserved)).toBe(
      isOfferingCompatible(reserved, requirements, new Set()),
    );
    const allowed = new Set([
      'example.com/reservation',
      'karpenter.sh/capacity-type',
      'topology.kubernetes.io/zone',
    ]);
    expect(new OfferingCompatibility(requirements, allowed).compatible(reserved)).toBe(true);
  });
});
