import { describe, expect, it } from 'vitest';
import { matchesListOptions } from '../src/index.js';

describe('matchesListOptions', () => {
  const pod = {
    metadata: { namespace: 'web', labels: { app: 'a', tier: 'front' } },
    spec: { nodeName: 'n1' },
  };

  it('keeps an object in the namespace carrying every requested label', () => {
    expect(matchesListOptions('Pod', pod, { namespace: 'web', labels: { app: 'a' } })).toBe(true);
    expect(matchesListOptions('Pod', pod, { namespace: 'db' })).toBe(false);
    expect(matchesListOptions('Pod', pod, { labels: { app: 'a', tier: 'back' } })).toBe(false);
  });

  it('matches nodeName on Pods only', () => {
    expect(matchesListOptions('Pod', pod, { nodeName: 'n1' })).toBe(true);
    expect(matchesListOptions('Pod', pod, { nodeName: 'n2' })).toBe(false);
    expect(matchesListOptions('Node', { metadata: {} }, { nodeName: 'n1' })).toBe(false);
  });

  it("selects unbound pods with nodeName '', as the field selector spec.nodeName= does", () => {
    const unbound = { metadata: {}, spec: {} };
    expect(matchesListOptions('Pod', unbound, { nodeName: '' })).toBe(true);
    expect(matchesListOptions('Pod', { metadata: {} }, { nodeName: '' })).toBe(true);
    expect(matchesListOptions('Pod', pod, { nodeName: '' })).toBe(false);
  });

  it('matches providerID on Node spec and NodeClaim status only', () => {
    const id = 'azure:///subscriptions/s/vm-1';
    const node = { metadata: {}, spec: { providerID: id } };
    const claim = { metadata: {}, status: { providerID: id } };
    expect(matchesListOptions('Node', node, { providerID: id })).toBe(true);
    expect(matchesListOptions('NodeClaim', claim, { providerID: id })).toBe(true);
    expect(matchesListOptions('NodeClaim', node, { providerID: id })).toBe(false);
    expect(matchesListOptions('Pod', pod, { providerID: id })).toBe(false);
  });
});
