import { describe, expect, it } from 'vitest';
import {
  taintKey,
  tolerates,
  toleratesAll,
  type TaintLike,
  type TolerationLike,
} from '../src/index.js';

const gpu: TaintLike = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };
const spot: TaintLike = { key: 'example.com/spot', effect: 'PreferNoSchedule' };

describe('tolerates follows kube-scheduler semantics', () => {
  const table: [string, TolerationLike, TaintLike, boolean][] = [
    [
      'Equal with matching key, value and effect',
      { key: 'nvidia.com/gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
      gpu,
      true,
    ],
    [
      'empty operator means Equal',
      { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
      gpu,
      true,
    ],
    [
      'Equal with a different value',
      { key: 'nvidia.com/gpu', operator: 'Equal', value: 'false' },
      gpu,
      false,
    ],
    [
      'Equal with no value against a valued taint',
      { key: 'nvidia.com/gpu', operator: 'Equal' },
      gpu,
      false,
    ],
    [
      'Equal with no value against a taint without value',
      { key: 'example.com/spot', operator: 'Equal' },
      spot,
      true,
    ],
    ['Exists ignores the value', { key: 'nvidia.com/gpu', operator: 'Exists' }, gpu, true],
    [
      'empty effect matches every effect',
      { key: 'nvidia.com/gpu', operator: 'Exists' },
      { ...gpu, effect: 'NoExecute' },
      true,
    ],
    [
      'a different effect does not match',
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute' },
      gpu,
      false,
    ],
    ['a different key does not match', { key: 'other', operator: 'Exists' }, gpu, false],
    ['empty key with Exists tolerates everything', { operator: 'Exists' }, gpu, true],
    [
      'empty key with Exists and an effect tolerates that effect only',
      { operator: 'Exists', effect: 'NoExecute' },
      gpu,
      false,
    ],
    [
      'an unknown operator tolerates nothing',
      { key: 'nvidia.com/gpu', operator: 'Gt', value: '0' },
      gpu,
      false,
    ],
  ];
  it.each(table)('%s → %s', (_name, toleration, taint, expected) => {
    expect(tolerates(toleration, taint)).toBe(expected);
  });
});

describe('toleratesAll', () => {
  it('passes when every taint is tolerated, including PreferNoSchedule', () => {
    expect(
      toleratesAll(
        [
          { key: 'nvidia.com/gpu', operator: 'Exists' },
          { key: 'example.com/spot', operator: 'Exists' },
        ],
        [gpu, spot],
      ),
    ).toBeUndefined();
  });

  it('names the first taint no toleration matches', () => {
    expect(toleratesAll([{ key: 'nvidia.com/gpu', operator: 'Exists' }], [gpu, spot])).toBe(
      'did not tolerate taint example.com/spot:PreferNoSchedule',
    );
    expect(toleratesAll(undefined, [gpu])).toBe(
      'did not tolerate taint nvidia.com/gpu=true:NoSchedule',
    );
  });

  it('passes with no taints', () => {
    expect(toleratesAll(undefined, undefined)).toBeUndefined();
    expect(toleratesAll([], [])).toBeUndefined();
  });
});

describe('taintKey', () => {
  it('prints key=value:effect, or key:effect without a value', () => {
    expect(taintKey(gpu)).toBe('nvidia.com/gpu=true:NoSchedule');
    expect(taintKey(spot)).toBe('example.com/spot:PreferNoSchedule');
    expect(taintKey({ ...spot, value: '' })).toBe('example.com/spot:PreferNoSchedule');
  });
});
