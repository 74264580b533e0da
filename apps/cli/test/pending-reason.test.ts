import { describe, expect, it } from 'vitest';
import { condensedReason } from '../src/output/pending-reason.js';

const clause = (pool: string, why: string) => `incompatible with nodepool "${pool}", ${why}`;
const LIMITS = "all instance types exceed the nodepool's remaining limits";
const TAINT = 'did not tolerate taint example.com/gpu=true:NoSchedule';

describe('condensedReason', () => {
  it("keeps upstream's text for a reason naming five NodePools or fewer", () => {
    const reason = ['a', 'b', 'c', 'd', 'e'].map((p) => clause(p, LIMITS)).join('; ');
    expect(condensedReason(reason)).toBe(reason);
  });

  it('groups the NodePools that share a why, in first-seen order, and names the first five of each', () => {
    const pools = Array.from({ length: 9 }, (_, i) => `p${i}`);
    const reason = [...pools.map((p) => clause(p, LIMITS)), clause('gpu', TAINT)].join('; ');
    expect(condensedReason(reason)).toBe(
      `incompatible with 9 nodepools ("p0", "p1", "p2", "p3", "p4" and 4 more), ${LIMITS}; ${clause('gpu', TAINT)}`,
    );
  });

  it('keeps a why that itself contains "; " whole', () => {
    const why = 'no nodepools found; nodepool "x" has no instance types';
    const reason = Array.from({ length: 6 }, (_, i) => clause(`p${i}`, why)).join('; ');
    expect(condensedReason(reason)).toBe(
      `incompatible with 6 nodepools ("p0", "p1", "p2", "p3", "p4" and 1 more), ${why}`,
    );
  });

  it('leaves a reason unchanged when a part of it is not a NodePool clause', () => {
    const reason = `pod has unbound immediate PersistentVolumeClaims; ${Array.from({ length: 6 }, (_, i) => clause(`p${i}`, LIMITS)).join('; ')}`;
    expect(condensedReason(reason)).toBe(reason);
  });
});
