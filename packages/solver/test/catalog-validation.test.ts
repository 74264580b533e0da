import { describe, expect, it } from 'vitest';
import { createSolver, type SolverCatalog } from '../src/index.js';
import { KINDS, catalogOf } from './builders.js';

const cases: [string, SolverCatalog, RegExp][] = [
  [
    'an allocatable array of the wrong length',
    { resourceNames: ['cpu', 'memory'], typeCount: 2, allocatable: new Float64Array(3) },
    /allocatable must hold typeCount × resources = 2 × 2 = 4 values, got 3/,
  ],
  [
    'a negative allocatable amount',
    catalogOf(
      ['cpu', 'memory'],
      [
        [1000, 1],
        [2000, -5],
      ],
    ),
    /allocatable\[3\] \(row 1, resource "memory"\) must be a non-negative integer/,
  ],
  [
    'a fractional allocatable amount',
    catalogOf(['cpu'], [[0.5]]),
    /allocatable\[0\] \(row 0, resource "cpu"\)/,
  ],
  ['a NaN allocatable amount', catalogOf(['cpu'], [[NaN]]), /got NaN/],
  ['an infinite allocatable amount', catalogOf(['cpu'], [[Infinity]]), /got Infinity/],
  ['an amount beyond 2^53', catalogOf(['cpu'], [[2 ** 54]]), /no larger than 2\^53 - 1/],
  [
    'a repeated resource name',
    catalogOf(['cpu', 'cpu'], [[1, 1]]),
    /resourceNames\[1\] repeats resource "cpu"/,
  ],
  [
    'an empty resource name',
    catalogOf([''], [[1]]),
    /resourceNames\[0\] must be a non-empty string/,
  ],
  [
    'a negative typeCount',
    { resourceNames: ['cpu'], typeCount: -1, allocatable: new Float64Array(0) },
    /typeCount must be an integer from 0 to 1048576, got -1/,
  ],
  [
    'a fractional typeCount',
    { resourceNames: ['cpu'], typeCount: 1.5, allocatable: new Float64Array(1) },
    /typeCount must be an integer/,
  ],
  [
    'allocatable as a plain array',
    { resourceNames: ['cpu'], typeCount: 1, allocatable: [1] as unknown as Float64Array },
    /allocatable must be a Float64Array/,
  ],
  [
    'resourceNames that is not an array',
    { resourceNames: 'cpu' as unknown as string[], typeCount: 0, allocatable: new Float64Array(0) },
    /resourceNames must be an array/,
  ],
];

describe.each(KINDS)('%s solver load', (kind) => {
  it.each(cases)('rejects %s with a RangeError', (_name, catalog, message) => {
    const solver = createSolver(kind);
    expect(() => solver.load(catalog)).toThrow(RangeError);
    expect(() => solver.load(catalog)).toThrow(message);
  });

  it('keeps the previous batch when a new catalog is rejected', () => {
    const solver = createSolver(kind);
    solver.load(catalogOf(['cpu'], [[1000]]));
    solver.openClaim(Float64Array.of(0), Uint32Array.of(1));
    expect(() => solver.load(catalogOf(['cpu'], [[-1]]))).toThrow(RangeError);
    expect(solver.claimCount).toBe(1);
    expect(solver.typeCount).toBe(1);
  });

  it('accepts an empty catalog', () => {
    const solver = createSolver(kind);
    solver.load({ resourceNames: ['cpu'], typeCount: 0, allocatable: new Float64Array(0) });
    expect(solver.maskWords).toBe(0);
    expect(solver.openClaim(Float64Array.of(0), new Uint32Array(0))).toBe(0);
    expect(solver.findClaim(Float64Array.of(0), new Uint32Array(0), -1)).toBe(-1);
  });
});
