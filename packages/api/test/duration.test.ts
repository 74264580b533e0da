import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import {
  DurationError,
  formatDuration,
  parseDuration,
  validateNodePoolRuntime,
} from '../src/index.js';

describe('durations', () => {
  test.each([
    ['30s', 30],
    ['10m', 600],
    ['1h30m', 5400],
    ['720h', 2592000],
    ['1h0m0s', 3600],
    ['0s', 0],
  ])('%s is %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  test('Never means no limit', () => {
    expect(parseDuration('Never')).toBeNull();
  });

  test.each(['', '1d', '1.5h', '10ms', 'never', '-1h', '1 h'])(
    '%j is rejected with DurationError',
    (text) => {
      expect(() => parseDuration(text)).toThrow(DurationError);
    },
  );

  test('format then parse gives back the seconds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        (s) => parseDuration(formatDuration(s)) === s,
      ),
    );
  });

  test('any sequence of h/m/s groups parses to the sum of its parts', () => {
    const group = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('h', 'm', 's'));
    fc.assert(
      fc.property(fc.array(group, { minLength: 1, maxLength: 5 }), (groups) => {
        const text = groups.map(([n, u]) => `${n}${u}`).join('');
        const expected = groups.reduce(
          (sum, [n, u]) => sum + n * (u === 'h' ? 3600 : u === 'm' ? 60 : 1),
          0,
        );
        return parseDuration(text) === expected;
      }),
    );
  });
});

describe('durations beyond Go', () => {
  it('refuses a duration longer than Go time.Duration holds (upstream could not read it)', () => {
    expect(() => parseDuration('999999999999h')).toThrow(/longer than the largest Go duration/);
    expect(parseDuration('2562047h')).toBe(2562047 * 3600);
  });

  it('reports such a consolidateAfter as a NodePool problem naming the field', () => {
    const violations = validateNodePoolRuntime({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'p' },
      spec: {
        disruption: { consolidateAfter: '999999999999h', budgets: [{ nodes: '99999999999' }] },
        template: {
          spec: { requirements: [], nodeClassRef: { group: 'g', kind: 'K', name: 'n' } },
        },
      },
    });
    expect(violations.map((v) => v.path)).toEqual([
      'spec.disruption.budgets[0].nodes',
      'spec.disruption.consolidateAfter',
    ]);
  });
});
