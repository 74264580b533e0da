import { describe, expect, it } from 'vitest';
import { kubeletMaySet } from '../src/index.js';

describe('kubeletMaySet (NodeRestriction admission)', () => {
  it('allows keys outside the kubernetes.io and k8s.io domains', () => {
    expect(kubeletMaySet('karpenter.sh/nodepool')).toBe(true);
    expect(kubeletMaySet('karpenter.azure.com/sku-family')).toBe(true);
    expect(kubeletMaySet('team')).toBe(true);
  });

  it('allows the kubelet and node domains and the four well-known keys', () => {
    expect(kubeletMaySet('kubelet.kubernetes.io/anything')).toBe(true);
    expect(kubeletMaySet('node.kubernetes.io/instance-type')).toBe(true);
    expect(kubeletMaySet('kubernetes.io/arch')).toBe(true);
    expect(kubeletMaySet('kubernetes.io/os')).toBe(true);
    expect(kubeletMaySet('topology.kubernetes.io/region')).toBe(true);
    expect(kubeletMaySet('topology.kubernetes.io/zone')).toBe(true);
  });

  it('refuses other kubernetes.io and k8s.io keys, subdomains included', () => {
    expect(kubeletMaySet('kubernetes.io/hostname')).toBe(false);
    expect(kubeletMaySet('node-role.kubernetes.io/worker')).toBe(false);
    expect(kubeletMaySet('example.k8s.io/x')).toBe(false);
  });
});
