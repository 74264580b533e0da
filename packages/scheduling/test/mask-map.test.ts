import { describe, expect, it } from 'vitest';
import { MaskMap } from '../src/mask-map.js';

describe('MaskMap', () => {
  it('finds a value by the words of the mask, not by the array object', () => {
    const map = new MaskMap<string>();
    const scratch = Uint32Array.of(0b1011, 0xffffffff);
    map.set(scratch, 'first');
    scratch[0] = 0b0011; // the caller reuses its array: the stored key must not change
    map.set(scratch, 'second');
    expect(map.get(Uint32Array.of(0b1011, 0xffffffff))).toBe('first');
    expect(map.get(Uint32Array.of(0b0011, 0xffffffff))).toBe('second');
    expect(map.get(Uint32Array.of(0b0111, 0xffffffff))).toBeUndefined();
    expect(map.get(Uint32Array.of(0b1011))).toBeUndefined();
  });

  it('replaces the value of an equal mask', () => {
    const map = new MaskMap<number>();
    map.set(Uint32Array.of(5), 1);
    map.set(Uint32Array.of(5), 2);
    expect(map.get(Uint32Array.of(5))).toBe(2);
  });
});
