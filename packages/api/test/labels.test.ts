import { describe, expect, it } from 'vitest';
import { normalizeLabelKey } from '../src/index.js';

describe('normalizeLabelKey', () => {
  it('maps deprecated beta keys to their stable keys', () => {
    expect(normalizeLabelKey('beta.kubernetes.io/arch')).toBe('kubernetes.io/arch');
    expect(normalizeLabelKey('failure-domain.beta.kubernetes.io/zone')).toBe(
      'topology.kubernetes.io/zone',
    );
  });

  it('returns keys that collide with Object.prototype members unchanged', () => {
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(normalizeLabelKey(key)).toBe(key);
    }
  });
});
