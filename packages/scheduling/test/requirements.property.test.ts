/**
 * The requirements algebra checked against a brute-force model: a requirement denotes the set of
 * label values (strings) it allows, and the model decides membership straight from the operators.
 * Values come from a small alphabet plus small integers; the universe also holds strings no
 * requirement mentions ("zz", zero-padded integers) so complement sets always have witnesses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Requirement, Requirements } from '../src/index.js';

type Op = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';
interface Atom {
  key: string;
  op: Op;
  values: string[];
  minValues?: number;
}

const ALPHABET = ['a', 'b', 'c', '-1', '0', '1', '2', '3', '5', '8', '9'];
const INTEGERS = Array.from({ length: 17 }, (_, i) => i - 3); // -3..13
const UNIVERSE = [
  ...new Set([
    ...ALPHABET,
    'zz',
    ...INTEGERS.map(String),
    ...INTEGERS.map((n) => (n < 0 ? `-0${-n}` : `0${n}`)),
  ]),
];
const KEYS = ['k1', 'k2', 'kubernetes.io/arch', 'beta.kubernetes.io/arch'];
const normalize = (key: string) => (key === 'beta.kubernetes.io/arch' ? 'kubernetes.io/arch' : key);

const asInt = (v: string): number | undefined => (/^[+-]?[0-9]+$/.test(v) ? Number(v) : undefined);

/** Membership by the operator's definition. */
function atomHas(atom: Atom, v: string): boolean {
  const n = asInt(v);
  const bound = Number(atom.values[0]);
  switch (atom.op) {
    case 'In':
      return atom.values.includes(v);
    case 'NotIn':
      return !atom.values.includes(v);
    case 'Exists':
      return true;
    case 'DoesNotExist':
      return false;
    case 'Gt':
      return n !== undefined && n > bound;
    case 'Lt':
      return n !== undefined && n < bound;
    case 'Gte':
      return n !== undefined && n >= bound;
    case 'Lte':
      return n !== undefined && n <= bound;
  }
}

const modelHas = (atoms: Atom[], v: string) => atoms.every((a) => atomHas(a, v));
const modelEmpty = (atoms: Atom[]) => !UNIVERSE.some((v) => modelHas(atoms, v));

/**
 * Whether a node without the label satisfies the combined requirement, in upstream's terms: the
 * combination reads as DoesNotExist (nothing allowed) or NotIn (a complement that still excludes
 * some value within its integer bounds).
 */
function modelToleratesAbsence(atoms: Atom[]): boolean {
  if (modelEmpty(atoms)) return true;
  if (!atoms.every((a) => a.op !== 'In' && a.op !== 'DoesNotExist')) return false;
  const bounded = atoms.filter((a) => ['Gt', 'Lt', 'Gte', 'Lte'].includes(a.op));
  const inBounds = (v: string) => bounded.every((a) => atomHas(a, v));
  return atoms.some((a) => a.op === 'NotIn' && a.values.some(inBounds));
}

function modelKeyIntersects(a: Atom[], b: Atom[]): boolean {
  return (
    UNIVERSE.some((v) => modelHas(a, v) && modelHas(b, v)) ||
    (modelToleratesAbsence(a) && modelToleratesAbsence(b))
  );
}

const byKey = (atoms: Atom[]) => {
  const m = new Map<string, Atom[]>();
  for (const a of atoms) m.set(normalize(a.key), [...(m.get(normalize(a.key)) ?? []), a]);
  return m;
};

function modelIntersects(a: Atom[], b: Atom[]): boolean {
  const ma = byKey(a);
  const mb = byKey(b);
  for (const [key, atomsA] of ma) {
    const atomsB = mb.get(key);
    if (atomsB !== undefined && !modelKeyIntersects(atomsA, atomsB)) return false;
  }
  return true;
}

function modelCompatible(a: Atom[], b: Atom[], allow: ReadonlySet<string>): boolean {
  const ma = byKey(a);
  for (const [key, atomsB] of byKey(b)) {
    if (!ma.has(key) && !allow.has(key) && !modelToleratesAbsence(atomsB)) return false;
  }
  return modelIntersects(a, b);
}

const arbAtom = (keys: string[]): fc.Arbitrary<Atom> =>
  fc
    .record({
      key: fc.constantFrom(...keys),
      op: fc.constantFrom<Op>('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'),
      set: fc.uniqueArray(fc.constantFrom(...ALPHABET), { maxLength: 4 }),
      bound: fc.integer({ min: -1, max: 10 }),
      minValues: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    })
    .map(({ key, op, set, bound, minValues }) => ({
      key,
      op,
      values:
        op === 'In' || op === 'NotIn'
          ? set
          : op === 'Exists' || op === 'DoesNotExist'
            ? []
            : [String(bound)],
      minValues,
    }));

const build = (atom: Atom) => Requirement.create(atom.key, atom.op, atom.values, atom.minValues);
const combine = (atoms: Atom[]) => atoms.map(build).reduce((acc, r) => acc.intersection(r));
const shape = (r: Requirement) => ({
  key: r.key,
  complement: r.complement,
  values: [...r.valuesList()],
  gte: r.greaterThanOrEqual,
  lte: r.lessThanOrEqual,
  minValues: r.minValues,
});

const oneKey = fc.array(arbAtom(['k']), { minLength: 1, maxLength: 4 });
const params = { numRuns: 400 };

describe('Requirement against the brute-force model', () => {
  it('has(v) of a combination is the conjunction of each operator', () => {
    fc.assert(
      fc.property(oneKey, (atoms) => {
        const r = combine(atoms);
        for (const v of UNIVERSE) expect(r.has(v)).toBe(modelHas(atoms, v));
      }),
      params,
    );
  });

  it('intersection is commutative and associative, minValues the max', () => {
    fc.assert(
      fc.property(arbAtom(['k']), arbAtom(['k']), arbAtom(['k']), (x, y, z) => {
        const [a, b, c] = [build(x), build(y), build(z)];
        expect(shape(a.intersection(b))).toEqual(shape(b.intersection(a)));
        expect(shape(a.intersection(b).intersection(c))).toEqual(
          shape(a.intersection(b.intersection(c))),
        );
        const mv = [x, y].map((t) => t.minValues ?? 0);
        expect(a.intersection(b).minValues ?? 0).toBe(Math.max(...mv));
      }),
      params,
    );
  });

  it('hasIntersection says whether some value satisfies both', () => {
    fc.assert(
      fc.property(oneKey, oneKey, (xs, ys) => {
        const expected = UNIVERSE.some((v) => modelHas(xs, v) && modelHas(ys, v));
        expect(combine(xs).hasIntersection(combine(ys))).toBe(expected);
        expect(combine(ys).hasIntersection(combine(xs))).toBe(expected);
      }),
      params,
    );
  });

  it('any() is a member, or "" exactly when nothing is allowed', () => {
    fc.assert(
      fc.property(oneKey, (atoms) => {
        const r = combine(atoms);
        const value = r.any();
        if (modelEmpty(atoms)) expect(value).toBe('');
        else expect(r.has(value)).toBe(true);
      }),
      params,
    );
  });

  it('round-trips through node selector requirements', () => {
    fc.assert(
      fc.property(oneKey, (atoms) => {
        const r = combine(atoms);
        const again = Requirements.fromNodeSelectorRequirements(r.toNodeSelectorRequirements());
        expect(shape(again.get('k'))).toEqual(shape(r));
      }),
      params,
    );
  });
});

describe('Requirements against the brute-force model', () => {
  const arbSet = fc.array(arbAtom(KEYS), { maxLength: 6 });
  const fromAtoms = (atoms: Atom[]) =>
    Requirements.fromNodeSelectorRequirements(
      atoms.map((a) => ({ key: a.key, operator: a.op, values: a.values, minValues: a.minValues })),
    );

  it('intersects agrees with the model, and with isIntersecting', () => {
    fc.assert(
      fc.property(arbSet, arbSet, (xs, ys) => {
        const [a, b] = [fromAtoms(xs), fromAtoms(ys)];
        const expected = modelIntersects(xs, ys);
        expect(a.isIntersecting(b)).toBe(expected);
        expect(a.intersects(b) === undefined).toBe(expected);
      }),
      params,
    );
  });

  it('compatible agrees with the model, with and without allowed undefined keys', () => {
    fc.assert(
      fc.property(arbSet, arbSet, fc.boolean(), (xs, ys, allowArch) => {
        const [a, b] = [fromAtoms(xs), fromAtoms(ys)];
        const allow = new Set(allowArch ? ['kubernetes.io/arch'] : []);
        const expected = modelCompatible(xs, ys, allow);
        expect(a.isCompatible(b, allow)).toBe(expected);
        const reason = a.compatible(b, allow);
        expect(reason === undefined).toBe(expected);
        if (reason !== undefined) expect(reason.length).toBeGreaterThan(0);
      }),
      params,
    );
  });

  it('intersection holds, per key, exactly the values both allow', () => {
    fc.assert(
      fc.property(arbSet, arbSet, (xs, ys) => {
        const both = fromAtoms(xs).intersection(fromAtoms(ys));
        const model = byKey([...xs, ...ys]);
        expect(new Set(both.keys())).toEqual(new Set(model.keys()));
        for (const [key, atoms] of model) {
          for (const v of UNIVERSE) expect(both.get(key).has(v)).toBe(modelHas(atoms, v));
        }
      }),
      params,
    );
  });
});
