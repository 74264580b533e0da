import { describe, expect, it } from 'vitest';
import { CreateError, launchNodeClaimName, launchRequests } from '../src/index.js';
import { nodeClaim } from './builders.js';

describe('launch request', () => {
  it('reads the requests as canonical integers (cpu in millicores, memory in bytes)', () => {
    const claim = nodeClaim({ name: 'a', requests: { cpu: '1500m', memory: '1Gi' } });
    expect(launchRequests(claim, 'a')).toEqual({ cpu: 1500, memory: 1073741824 });
    expect(launchRequests(nodeClaim({ name: 'b' }), 'b')).toEqual({});
  });

  it('rejects an unparsable request as InvalidNodeClaim naming the claim and the field', () => {
    const err = (() => {
      try {
        return launchRequests(nodeClaim({ name: 'c', requests: { cpu: 'lots' } }), 'c');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CreateError);
    expect((err as CreateError).reason).toBe('InvalidNodeClaim');
    expect((err as CreateError).message).toMatch(/^node claim c: spec\.resources\.requests: /);
  });

  it('needs a name to launch under', () => {
    const claim = nodeClaim();
    expect(launchNodeClaimName(claim)).toBe(claim.metadata.name);
    claim.metadata.name = '';
    expect(() => launchNodeClaimName(claim)).toThrow(
      expect.objectContaining({ reason: 'InvalidNodeClaim' }),
    );
  });
});
