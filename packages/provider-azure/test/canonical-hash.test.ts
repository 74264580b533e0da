import { describe, expect, it } from 'vitest';
import { canonicalSha256 } from '../src/nodeclass/canonical-hash.js';

describe('canonicalSha256', () => {
  it('hashes equal values equally whatever their key order', () => {
    expect(canonicalSha256({ a: 1, b: { c: 'x', d: [1, 2] } })).toBe(
      canonicalSha256({ b: { d: [1, 2], c: 'x' }, a: 1 }),
    );
  });

  it('treats a key set to undefined as absent', () => {
    expect(canonicalSha256({ a: 1, b: undefined })).toBe(canonicalSha256({ a: 1 }));
  });

  it('tells apart values that differ, including array order', () => {
    expect(canonicalSha256({ a: [1, 2] })).not.toBe(canonicalSha256({ a: [2, 1] }));
    expect(canonicalSha256({ a: '1' })).not.toBe(canonicalSha256({ a: 1 }));
  });

  it('is a 64-character hex sha256', () => {
    expect(canonicalSha256({})).toMatch(/^[0-9a-f]{64}$/);
  });
});
