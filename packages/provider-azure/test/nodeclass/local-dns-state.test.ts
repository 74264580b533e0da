import { describe, expect, it } from 'vitest';
import { localDNSEnabled, resolveLocalDNSState, type AKSNodeClass } from '../../src/index.js';

const spec = (mode?: 'Preferred' | 'Required' | 'Disabled'): AKSNodeClass['spec'] =>
  mode === undefined ? {} : { localDNS: { mode } };

describe('status.localDNSState', () => {
  it('Required is Enabled and Disabled (or no mode) is Disabled, whatever the status held', () => {
    for (const current of [undefined, 'Enabled', 'Disabled'] as const) {
      expect(resolveLocalDNSState(spec('Required'), current)).toEqual({
        state: 'Enabled',
        message: '',
      });
      expect(resolveLocalDNSState(spec('Disabled'), current).state).toBe('Disabled');
      expect(resolveLocalDNSState(spec(), current).state).toBe('Disabled');
    }
  });

  it('Preferred resolves to Disabled, saying the cluster gates are not read', () => {
    const r = resolveLocalDNSState(spec('Preferred'), undefined);
    expect(r).toMatchObject({ state: 'Disabled', reason: 'PreferredResolvedDisabled' });
    expect(r.message).toContain('does not read the AKS cluster LocalDNS gates');
    expect(resolveLocalDNSState(spec('Preferred'), 'Disabled').state).toBe('Disabled');
  });

  it('Preferred stays Enabled once Enabled (upstream keeps it sticky)', () => {
    expect(resolveLocalDNSState(spec('Preferred'), 'Enabled')).toMatchObject({
      state: 'Enabled',
      reason: 'PreferredStaysEnabled',
    });
  });

  it('is the state the instance type filters read for Preferred', () => {
    const nc = (mode: 'Preferred', current?: 'Enabled'): AKSNodeClass => ({
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name: 'x' },
      spec: spec(mode),
      status: { localDNSState: resolveLocalDNSState(spec(mode), current).state },
    });
    expect(localDNSEnabled(nc('Preferred'))).toBe(false);
    expect(localDNSEnabled(nc('Preferred', 'Enabled'))).toBe(true);
  });
});
