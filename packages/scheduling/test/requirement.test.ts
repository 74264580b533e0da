import { describe, expect, it } from 'vitest';
import { Requirement, RequirementError } from '../src/index.js';

const ZONE = 'topology.kubernetes.io/zone';

/** The structure of a requirement, for exact comparisons. */
function shape(r: Requirement) {
  return {
    key: r.key,
    complement: r.complement,
    values: [...r.valuesList()],
    gte: r.greaterThanOrEqual,
    lte: r.lessThanOrEqual,
    minValues: r.minValues,
  };
}

describe('Requirement.create reads each operator as a set', () => {
  const table: {
    op: string;
    values?: string[];
    complement: boolean;
    set: string[];
    gte?: number;
    lte?: number;
    operator: string;
  }[] = [
    { op: 'In', values: ['b', 'a', 'a'], complement: false, set: ['a', 'b'], operator: 'In' },
    { op: 'In', values: [], complement: false, set: [], operator: 'DoesNotExist' },
    { op: 'NotIn', values: ['a'], complement: true, set: ['a'], operator: 'NotIn' },
    { op: 'NotIn', values: [], complement: true, set: [], operator: 'Exists' },
    { op: 'Exists', complement: true, set: [], operator: 'Exists' },
    { op: 'DoesNotExist', complement: false, set: [], operator: 'DoesNotExist' },
    { op: 'Gt', values: ['5'], complement: true, set: [], gte: 6, operator: 'Exists' },
    { op: 'Lt', values: ['5'], complement: true, set: [], lte: 4, operator: 'Exists' },
    { op: 'Gte', values: ['5'], complement: true, set: [], gte: 5, operator: 'Exists' },
    { op: 'Lte', values: ['5'], complement: true, set: [], lte: 5, operator: 'Exists' },
    { op: 'Gt', values: ['-3'], complement: true, set: [], gte: -2, operator: 'Exists' },
    { op: 'Lt', values: ['+0'], complement: true, set: [], lte: -1, operator: 'Exists' },
  ];
  it.each(table)('$op $values', ({ op, values, complement, set, gte, lte, operator }) => {
    const r = Requirement.create('k', op, values);
    expect(shape(r)).toEqual({ key: 'k', complement, values: set, gte, lte, minValues: undefined });
    expect(r.operator()).toBe(operator);
  });

  it('Gt of the largest safe integer can match nothing (upstream: Gt MaxInt64 ⇒ DoesNotExist)', () => {
    const r = Requirement.create('k', 'Gt', [String(Number.MAX_SAFE_INTEGER)]);
    expect(r.operator()).toBe('DoesNotExist');
    expect(r.complement).toBe(false);
    expect(Requirement.create('k', 'Gt', ['9223372036854775807']).operator()).toBe('DoesNotExist');
    expect(Requirement.create('k', 'Lt', [String(Number.MIN_SAFE_INTEGER)]).operator()).toBe(
      'DoesNotExist',
    );
  });

  it('clamps a permissive bound beyond the safe range instead of losing precision', () => {
    expect(Requirement.create('k', 'Gt', ['-99999999999999999999']).greaterThanOrEqual).toBe(
      Number.MIN_SAFE_INTEGER,
    );
  });

  it('normalizes deprecated label keys', () => {
    expect(Requirement.create('failure-domain.beta.kubernetes.io/zone', 'In', ['z1']).key).toBe(
      ZONE,
    );
    expect(Requirement.create('beta.kubernetes.io/arch', 'Exists').key).toBe('kubernetes.io/arch');
    expect(Requirement.create('constructor', 'Exists').key).toBe('constructor');
  });

  it('keeps minValues', () => {
    expect(Requirement.create('k', 'In', ['a', 'b'], 2).minValues).toBe(2);
  });

  const invalid: [string, string, string[], number | undefined, RegExp][] = [
    ['', 'In', ['a'], undefined, /non-empty/],
    ['k', 'Near', ['a'], undefined, /unknown operator "Near"/],
    ['k', 'Gt', [], undefined, /exactly one integer/],
    ['k', 'Gt', ['1', '2'], undefined, /exactly one integer/],
    ['k', 'Lt', ['1.5'], undefined, /exactly one integer/],
    ['k', 'Gte', ['ten'], undefined, /exactly one integer/],
    ['k', 'Exists', ['a'], undefined, /takes no values/],
    ['k', 'DoesNotExist', ['a'], undefined, /takes no values/],
    ['k', 'In', ['a'], 0, /minValues must be a positive integer/],
    ['k', 'In', ['a'], 1.5, /minValues must be a positive integer/],
  ];
  it.each(invalid)(
    'rejects key %j operator %s values %j minValues %s',
    (key, op, values, mv, msg) => {
      expect(() => Requirement.create(key, op, values, mv)).toThrow(RequirementError);
      expect(() => Requirement.create(key, op, values, mv)).toThrow(msg);
    },
  );
});

describe('Requirement.has', () => {
  const table: [string, string[], string, boolean][] = [
    ['In', ['a', 'b'], 'a', true],
    ['In', ['a', 'b'], 'c', false],
    ['NotIn', ['a'], 'a', false],
    ['NotIn', ['a'], 'z', true],
    ['Exists', [], 'anything', true],
    ['DoesNotExist', [], '', false],
    ['Gt', ['5'], '6', true],
    ['Gt', ['5'], '5', false],
    ['Gt', ['5'], '06', true], // Go Atoi reads leading zeros
    ['Gt', ['5'], '+6', true],
    ['Gt', ['5'], 'six', false],
    ['Gt', ['5'], '6.0', false],
    ['Gt', ['5'], '99999999999999999999', false], // beyond int64: Atoi fails
    ['Gt', ['5'], '9223372036854775807', true],
    ['Lt', ['0'], '-9223372036854775808', true], // MinInt64 reads
    ['Lt', ['0'], '-9223372036854775809', false], // below int64: Atoi fails
    ['Lt', ['5'], '4', true],
    ['Lt', ['5'], '5', false],
    ['Lt', ['5'], '-4', true],
    ['Gte', ['5'], '5', true],
    ['Gte', ['5'], '4', false],
    ['Lte', ['5'], '5', true],
    ['Lte', ['5'], '6', false],
  ];
  it.each(table)('%s %j has %j: %s', (op, values, value, expected) => {
    expect(Requirement.create('k', op, values).has(value)).toBe(expected);
  });
});

describe('Requirement.intersection', () => {
  const r = (op: string, values: string[] = [], mv?: number) =>
    Requirement.create('k', op, values, mv);
  const table: [string, Requirement, Requirement, ReturnType<typeof shape>][] = [
    [
      'In ∩ In keeps common values',
      r('In', ['a', 'b', 'c']),
      r('In', ['b', 'c', 'd']),
      {
        key: 'k',
        complement: false,
        values: ['b', 'c'],
        gte: undefined,
        lte: undefined,
        minValues: undefined,
      },
    ],
    [
      'In ∩ NotIn removes excluded values',
      r('In', ['a', 'b']),
      r('NotIn', ['a']),
      {
        key: 'k',
        complement: false,
        values: ['b'],
        gte: undefined,
        lte: undefined,
        minValues: undefined,
      },
    ],
    [
      'NotIn ∩ NotIn excludes the union',
      r('NotIn', ['a']),
      r('NotIn', ['b']),
      {
        key: 'k',
        complement: true,
        values: ['a', 'b'],
        gte: undefined,
        lte: undefined,
        minValues: undefined,
      },
    ],
    [
      'Exists ∩ DoesNotExist is DoesNotExist',
      r('Exists'),
      r('DoesNotExist'),
      {
        key: 'k',
        complement: false,
        values: [],
        gte: undefined,
        lte: undefined,
        minValues: undefined,
      },
    ],
    [
      'Gt ∩ Lt keeps both bounds',
      r('Gt', ['1']),
      r('Lt', ['9']),
      { key: 'k', complement: true, values: [], gte: 2, lte: 8, minValues: undefined },
    ],
    [
      'contradictory bounds give DoesNotExist',
      r('Gt', ['5']),
      r('Lt', ['6']),
      {
        key: 'k',
        complement: false,
        values: [],
        gte: undefined,
        lte: undefined,
        minValues: undefined,
      },
    ],
    [
      'Gte n ∩ Lte n is the single integer n',
      r('Gte', ['4']),
      r('Lte', ['4']),
      { key: 'k', complement: true, values: [], gte: 4, lte: 4, minValues: undefined },
    ],
    [
      'In ∩ Gt drops values out of bounds or not integers, and the bounds',
      r('In', ['1', '5', '10', 'x']),
      r('Gt', ['4']),
      {
        key: 'k',
        complement: false,
        values: ['10', '5'],
        gte: undefined,
        lte: undefined,
        minValues: undefined,
      },
    ],
    [
      'NotIn ∩ Gt keeps only exclusions within bounds',
      r('NotIn', ['3', '7', 'x']),
      r('Gt', ['4']),
      { key: 'k', complement: true, values: ['7'], gte: 5, lte: undefined, minValues: undefined },
    ],
    [
      'minValues is the larger of the two',
      r('In', ['a', 'b', 'c'], 2),
      r('In', ['a', 'b'], 3),
      {
        key: 'k',
        complement: false,
        values: ['a', 'b'],
        gte: undefined,
        lte: undefined,
        minValues: 3,
      },
    ],
    [
      'Exists with minValues still raises minValues',
      r('In', ['a', 'b'], 1),
      r('Exists', [], 2),
      {
        key: 'k',
        complement: false,
        values: ['a', 'b'],
        gte: undefined,
        lte: undefined,
        minValues: 2,
      },
    ],
    [
      'contradictory bounds keep minValues',
      r('Gt', ['5'], 2),
      r('Lt', ['3']),
      { key: 'k', complement: false, values: [], gte: undefined, lte: undefined, minValues: 2 },
    ],
  ];
  it.each(table)('%s', (_name, a, b, expected) => {
    expect(shape(a.intersection(b))).toEqual(expected);
    expect(shape(b.intersection(a))).toEqual(expected);
  });

  it('returns an operand unchanged when the other is an unbounded Exists', () => {
    const a = r('In', ['a']);
    expect(a.intersection(r('Exists'))).toBe(a);
    expect(r('Exists').intersection(a)).toBe(a);
    expect(a.intersection(a)).toBe(a);
  });

  it('returns a concrete operand unchanged when the other allows all its values', () => {
    const many = r('In', ['a', 'b', 'c']);
    expect(many.intersection(r('NotIn', ['x', 'y']))).toBe(many);
    expect(r('NotIn', ['x']).intersection(many)).toBe(many);
    const few = r('In', ['b']);
    expect(many.intersection(few)).toBe(few);
    expect(few.intersection(many)).toBe(few);
    // …but not when the other side raises minValues
    expect(few.intersection(r('In', ['a', 'b'], 2)).minValues).toBe(2);
  });

  it('does not change its operands', () => {
    const a = r('In', ['a', 'b']);
    const b = r('NotIn', ['a']);
    a.intersection(b);
    expect(shape(a).values).toEqual(['a', 'b']);
    expect(shape(b).values).toEqual(['a']);
  });
});

describe('Requirement.hasIntersection', () => {
  const r = (op: string, values: string[] = []) => Requirement.create('k', op, values);
  const table: [string, Requirement, Requirement, boolean][] = [
    ['In overlapping In', r('In', ['a', 'b']), r('In', ['b']), true],
    ['In disjoint In', r('In', ['a']), r('In', ['b']), false],
    ['In vs NotIn of all its values', r('In', ['a']), r('NotIn', ['a']), false],
    ['In vs NotIn of other values', r('In', ['a']), r('NotIn', ['b']), true],
    ['NotIn vs NotIn', r('NotIn', ['a']), r('NotIn', ['b']), true],
    ['Exists vs DoesNotExist', r('Exists'), r('DoesNotExist'), false],
    ['DoesNotExist vs DoesNotExist', r('DoesNotExist'), r('DoesNotExist'), false],
    ['Gt 5 vs In [6]', r('Gt', ['5']), r('In', ['6']), true],
    ['Gt 5 vs In [5 x]', r('Gt', ['5']), r('In', ['5', 'x']), false],
    ['Gt 5 vs Lt 6 (no integer between)', r('Gt', ['5']), r('Lt', ['6']), false],
    ['Gt 5 vs Lt 7', r('Gt', ['5']), r('Lt', ['7']), true],
    // the only integer, 6, is excluded as "6" but "06" still reads as 6
    [
      'Gt 5 ∩ Lt 7 vs NotIn [6]',
      r('Gt', ['5']).intersection(r('Lt', ['7'])),
      r('NotIn', ['6']),
      true,
    ],
  ];
  it.each(table)('%s: %s', (_name, a, b, expected) => {
    expect(a.hasIntersection(b)).toBe(expected);
    expect(b.hasIntersection(a)).toBe(expected);
    expect(a.intersection(b).operator() !== 'DoesNotExist').toBe(expected);
  });
});

describe('Requirement.any is deterministic', () => {
  const table: [Requirement, string][] = [
    [Requirement.create('k', 'In', ['c', 'a', 'b']), 'a'],
    [Requirement.create('k', 'DoesNotExist'), ''],
    [Requirement.create('k', 'In', []), ''],
    [Requirement.create('k', 'Exists'), '0'],
    [Requirement.create('k', 'NotIn', ['0', '1']), '2'],
    [Requirement.create('k', 'Gt', ['7']), '8'],
    [Requirement.create('k', 'Lt', ['-4']), '-5'],
    [Requirement.create('k', 'Gte', ['-3']), '-3'],
    [
      Requirement.create('k', 'Gte', ['3']).intersection(
        Requirement.create('k', 'NotIn', ['3', '4']),
      ),
      '5',
    ],
    [
      Requirement.create('k', 'Gte', ['3'])
        .intersection(Requirement.create('k', 'Lte', ['3']))
        .intersection(Requirement.create('k', 'NotIn', ['3'])),
      '03',
    ],
  ];
  it.each(table)('%s → %j', (r, expected) => {
    expect(r.any()).toBe(expected);
    if (expected !== '') expect(r.has(expected)).toBe(true);
  });
});

describe('Requirement serialisation', () => {
  it('writes In/NotIn with sorted values and minValues', () => {
    expect(Requirement.create('k', 'In', ['b', 'a'], 2).toNodeSelectorRequirements()).toEqual([
      { key: 'k', operator: 'In', values: ['a', 'b'], minValues: 2 },
    ]);
    expect(Requirement.create('k', 'NotIn', ['b', 'a']).toNodeSelectorRequirements()).toEqual([
      { key: 'k', operator: 'NotIn', values: ['a', 'b'] },
    ]);
    expect(Requirement.create('k', 'Exists').toNodeSelectorRequirements()).toEqual([
      { key: 'k', operator: 'Exists' },
    ]);
    expect(Requirement.create('k', 'DoesNotExist').toNodeSelectorRequirements()).toEqual([
      { key: 'k', operator: 'DoesNotExist' },
    ]);
  });

  it('writes both bounds as two entries, plus excluded values', () => {
    const r = Requirement.create('k', 'Gt', ['1'])
      .intersection(Requirement.create('k', 'Lt', ['9']))
      .intersection(Requirement.create('k', 'NotIn', ['5']));
    expect(r.toNodeSelectorRequirements()).toEqual([
      { key: 'k', operator: 'Gte', values: ['2'] },
      { key: 'k', operator: 'Lte', values: ['8'] },
      { key: 'k', operator: 'NotIn', values: ['5'] },
    ]);
  });

  it('prints for messages, eliding long value lists', () => {
    expect(Requirement.create('k', 'In', ['b', 'a'], 2).toString()).toBe('k In [a b] minValues 2');
    expect(Requirement.create('k', 'In', ['1', '2', '3', '4', '5', '6', '7']).toString()).toBe(
      'k In [1 2 3 4 5 and 2 others]',
    );
    expect(Requirement.create('k', 'Gt', ['1']).toString()).toBe('k Exists >=2');
    expect(Requirement.create('k', 'DoesNotExist').toString()).toBe('k DoesNotExist');
  });

  it('reports len as a size, or as near-infinite for complements', () => {
    expect(Requirement.create('k', 'In', ['a', 'b']).len()).toBe(2);
    expect(Requirement.create('k', 'NotIn', ['a']).len()).toBe(Number.MAX_SAFE_INTEGER - 1);
  });
});
