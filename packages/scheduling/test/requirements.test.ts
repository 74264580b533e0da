import { describe, expect, it } from 'vitest';
import {
  allowUndefinedWellKnownLabels,
  Requirement,
  RequirementError,
  Requirements,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
} from '../src/index.js';

const ZONE = 'topology.kubernetes.io/zone';
const ARCH = 'kubernetes.io/arch';
const CAPACITY = 'karpenter.sh/capacity-type';

const reqs = (
  ...list: { key: string; operator: string; values?: string[]; minValues?: number }[]
) => Requirements.fromNodeSelectorRequirements(list);

describe('Requirements construction', () => {
  it('intersects entries with the same key', () => {
    const r = reqs(
      { key: ZONE, operator: 'In', values: ['z1', 'z2', 'z3'] },
      { key: ZONE, operator: 'NotIn', values: ['z2'] },
    );
    expect(r.size).toBe(1);
    expect(r.get(ZONE).valuesList()).toEqual(['z1', 'z3']);
  });

  it('normalizes deprecated keys so beta and stable keys merge', () => {
    const r = reqs(
      { key: 'beta.kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
      { key: ARCH, operator: 'In', values: ['arm64'] },
    );
    expect(r.keys()).toEqual([ARCH]);
    expect(r.get('beta.kubernetes.io/arch').valuesList()).toEqual(['arm64']);
    expect(r.has('beta.kubernetes.io/arch')).toBe(true);
  });

  it('reads labels as single-value In requirements', () => {
    const r = Requirements.fromLabels({ [ZONE]: 'z1', team: 'a' });
    expect(r.get(ZONE).operator()).toBe('In');
    expect(r.labels()).toEqual({ [ZONE]: 'z1', team: 'a' });
  });

  it('answers Exists for a key it does not hold', () => {
    const r = new Requirements();
    expect(r.get('anything').operator()).toBe('Exists');
    expect(r.has('anything')).toBe(false);
  });

  it('names the key of an invalid entry', () => {
    expect(() => reqs({ key: 'example.com/gen', operator: 'Gt', values: ['new'] })).toThrow(
      RequirementError,
    );
    expect(() => reqs({ key: 'example.com/gen', operator: 'Gt', values: ['new'] })).toThrow(
      /example\.com\/gen/,
    );
  });

  it('copy and intersection leave the originals unchanged', () => {
    const a = reqs({ key: ZONE, operator: 'In', values: ['z1', 'z2'] });
    const b = reqs(
      { key: ZONE, operator: 'In', values: ['z2'] },
      { key: ARCH, operator: 'Exists' },
    );
    const both = a.intersection(b);
    expect(both.get(ZONE).valuesList()).toEqual(['z2']);
    expect(both.has(ARCH)).toBe(true);
    expect(a.get(ZONE).valuesList()).toEqual(['z1', 'z2']);
    expect(a.has(ARCH)).toBe(false);
    const c = a.copy().add(Requirement.create(ZONE, 'In', ['z1']));
    expect(c.get(ZONE).valuesList()).toEqual(['z1']);
    expect(a.get(ZONE).valuesList()).toEqual(['z1', 'z2']);
  });

  it('iterates its requirements', () => {
    const r = reqs(
      { key: ZONE, operator: 'Exists' },
      { key: ARCH, operator: 'In', values: ['amd64'] },
    );
    expect([...r].map((x) => x.key)).toEqual([ZONE, ARCH]);
  });
});

describe('Requirements.compatible (a pod against a NodePool)', () => {
  const pool = reqs(
    { key: ZONE, operator: 'In', values: ['z1', 'z2'] },
    { key: CAPACITY, operator: 'In', values: ['spot', 'on-demand'] },
    { key: 'example.com/team', operator: 'In', values: ['blue'] },
  );

  it('accepts a pod whose requirements overlap', () => {
    const pod = reqs({ key: ZONE, operator: 'In', values: ['z2', 'z3'] });
    expect(pool.compatible(pod)).toBeUndefined();
    expect(pool.isCompatible(pod)).toBe(true);
  });

  it('rejects a pod whose values do not overlap, naming key and both sides', () => {
    const pod = reqs({ key: ZONE, operator: 'In', values: ['z3'] });
    expect(pool.isCompatible(pod)).toBe(false);
    expect(pool.compatible(pod)).toBe(`key ${ZONE}, ${ZONE} In [z3] not in ${ZONE} In [z1 z2]`);
  });

  it('rejects a custom label the pool does not define', () => {
    const pod = reqs({ key: 'example.com/gpu', operator: 'In', values: ['a100'] });
    expect(pool.compatible(pod)).toBe('label "example.com/gpu" does not have known values');
  });

  it('rejects an undefined custom label even with Exists', () => {
    const pod = reqs({ key: 'example.com/gpu', operator: 'Exists' });
    expect(pool.isCompatible(pod)).toBe(false);
  });

  it('accepts NotIn and DoesNotExist on labels the pool does not define', () => {
    const pod = reqs(
      { key: 'example.com/gpu', operator: 'NotIn', values: ['a100'] },
      { key: 'example.com/spot-only', operator: 'DoesNotExist' },
    );
    expect(pool.compatible(pod)).toBeUndefined();
  });

  it('allows undefined well-known labels only when asked to', () => {
    const pod = reqs({ key: ARCH, operator: 'In', values: ['arm64'] });
    expect(pool.compatible(pod)).toMatch(/label "kubernetes.io\/arch" does not have known values/);
    expect(pool.compatible(pod, WELL_KNOWN_LABELS_ALLOW_UNDEFINED)).toBeUndefined();
    expect(WELL_KNOWN_LABELS_ALLOW_UNDEFINED.has(ZONE)).toBe(true);
    expect(WELL_KNOWN_LABELS_ALLOW_UNDEFINED.has('karpenter.sh/nodepool')).toBe(true);
  });

  it('still checks a well-known label the pool does define', () => {
    const pod = reqs({ key: CAPACITY, operator: 'In', values: ['reserved'] });
    expect(pool.isCompatible(pod, WELL_KNOWN_LABELS_ALLOW_UNDEFINED)).toBe(false);
  });

  it('hints at a near-miss key', () => {
    const pod = reqs({ key: 'example.com/taem', operator: 'In', values: ['blue'] });
    expect(pool.compatible(pod)).toBe(
      'label "example.com/taem" does not have known values (typo of "example.com/team"?)',
    );
    const zonePod = reqs({ key: 'zone', operator: 'In', values: ['z1'] });
    expect(pool.compatible(zonePod)).toMatch(/typo of "topology.kubernetes.io\/zone"/);
  });

  it("allows a provider's well-known labels once they are added to Karpenter's", () => {
    const generation = 'karpenter.k8s.aws/instance-generation';
    const hypervisor = 'karpenter.k8s.aws/instance-hypervisor';
    const awsPool = reqs({ key: generation, operator: 'Gt', values: ['2'] });
    const pod = reqs({ key: hypervisor, operator: 'In', values: ['nitro'] });
    const allow = allowUndefinedWellKnownLabels([generation, hypervisor]);
    expect(awsPool.compatible(pod, allow)).toBeUndefined();
    expect(allow.has(ZONE)).toBe(true);
    // Karpenter's set alone knows nothing of the provider's label.
    expect(awsPool.compatible(pod, WELL_KNOWN_LABELS_ALLOW_UNDEFINED)).toMatch(
      /^label "karpenter.k8s.aws\/instance-hypervisor" does not have known values/,
    );
  });

  it("returns Karpenter's own set when a provider adds no labels", () => {
    expect(allowUndefinedWellKnownLabels()).toBe(WELL_KNOWN_LABELS_ALLOW_UNDEFINED);
    expect(allowUndefinedWellKnownLabels([ZONE])).toBe(WELL_KNOWN_LABELS_ALLOW_UNDEFINED);
  });

  it('lists every failing key', () => {
    const pod = reqs(
      { key: 'example.com/gpu', operator: 'In', values: ['a100'] },
      { key: ZONE, operator: 'In', values: ['z9'] },
    );
    const reason = pool.compatible(pod) ?? '';
    expect(reason.split('; ')).toHaveLength(2);
  });
});

describe('Requirements.intersects', () => {
  it('tolerates NotIn against DoesNotExist, both matching an unlabeled node', () => {
    const a = reqs({ key: 'k', operator: 'NotIn', values: ['x'] });
    const b = reqs({ key: 'k', operator: 'DoesNotExist' });
    expect(a.intersects(b)).toBeUndefined();
    expect(b.intersects(a)).toBeUndefined();
    expect(b.intersects(b)).toBeUndefined();
  });

  it('rejects Exists against DoesNotExist', () => {
    const a = reqs({ key: 'k', operator: 'Exists' });
    const b = reqs({ key: 'k', operator: 'DoesNotExist' });
    expect(a.intersects(b)).toBe('key k, k DoesNotExist not in k Exists');
    expect(a.isIntersecting(b)).toBe(false);
  });

  it('rejects In against DoesNotExist', () => {
    const a = reqs({ key: 'k', operator: 'In', values: ['v'] });
    const b = reqs({ key: 'k', operator: 'DoesNotExist' });
    expect(a.isIntersecting(b)).toBe(false);
    expect(b.isIntersecting(a)).toBe(false);
  });

  it('ignores keys only one side defines', () => {
    const a = reqs({ key: 'a', operator: 'In', values: ['1'] });
    const b = reqs({ key: 'b', operator: 'In', values: ['2'] });
    expect(a.intersects(b)).toBeUndefined();
  });

  it('compares integer bounds', () => {
    const pool = reqs({ key: 'example.com/cpu', operator: 'In', values: ['2', '4', '8'] });
    expect(
      pool.isIntersecting(reqs({ key: 'example.com/cpu', operator: 'Gt', values: ['4'] })),
    ).toBe(true);
    expect(
      pool.isIntersecting(reqs({ key: 'example.com/cpu', operator: 'Gt', values: ['8'] })),
    ).toBe(false);
  });
});

describe('Requirements output', () => {
  const r = reqs(
    { key: ZONE, operator: 'In', values: ['z1'] },
    { key: ARCH, operator: 'In', values: ['amd64', 'arm64'], minValues: 2 },
    { key: 'example.com/gen', operator: 'Gt', values: ['2'] },
    { key: 'example.com/gen', operator: 'Lt', values: ['9'] },
    { key: 'example.com/x', operator: 'NotIn', values: ['y'] },
  );

  it('labels() holds only keys pinned to one value', () => {
    expect(r.labels()).toEqual({ [ZONE]: 'z1' });
  });

  it('serialises sorted by key, bounds as Gte and Lte', () => {
    expect(r.toNodeSelectorRequirements()).toEqual([
      { key: 'example.com/gen', operator: 'Gte', values: ['3'] },
      { key: 'example.com/gen', operator: 'Lte', values: ['8'] },
      { key: 'example.com/x', operator: 'NotIn', values: ['y'] },
      { key: ARCH, operator: 'In', values: ['amd64', 'arm64'], minValues: 2 },
      { key: ZONE, operator: 'In', values: ['z1'] },
    ]);
  });

  it('round-trips through node selector requirements', () => {
    const again = Requirements.fromNodeSelectorRequirements(r.toNodeSelectorRequirements());
    expect(again.toString()).toBe(r.toString());
  });

  it('prints sorted requirements', () => {
    expect(r.toString()).toBe(
      'example.com/gen Exists >=3 <=8, example.com/x NotIn [y], kubernetes.io/arch In [amd64 arm64] minValues 2, topology.kubernetes.io/zone In [z1]',
    );
  });

  it('reports minValues', () => {
    expect(r.hasMinValues()).toBe(true);
    expect(r.minValues()).toEqual({ [ARCH]: 2 });
    expect(reqs({ key: ZONE, operator: 'Exists' }).hasMinValues()).toBe(false);
    const raised = r.copy().add(Requirement.create(ARCH, 'Exists', [], 3));
    expect(raised.minValues()).toEqual({ [ARCH]: 3 });
  });
});
