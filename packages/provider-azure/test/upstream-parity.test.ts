/**
 * AKSNodeClass documents upstream's CRD (Azure/karpenter-provider-azure, August 2026 main)
 * judges differently from the rules we had rewritten (issue 15, Validation 7): each case here
 * disagreed before.
 */
import { describe, expect, it } from 'vitest';
import { validateAKSNodeClass } from '../src/index.js';

const paths = (spec: Record<string, unknown>): string[] =>
  validateAKSNodeClass({
    apiVersion: 'karpenter.azure.com/v1beta1',
    kind: 'AKSNodeClass',
    metadata: { name: 'test' },
    spec,
  }).map((v) => v.path);

const override = (zone: string, forwardDestination: string) => ({
  zone,
  queryLogging: 'Error',
  protocol: 'PreferUDP',
  forwardDestination,
  forwardPolicy: 'Sequential',
  maxConcurrent: 1000,
  cacheDuration: '1h',
  serveStaleDuration: '1h',
  serveStale: 'Immediate',
});
const kubeDNS = [override('.', 'ClusterCoreDNS'), override('cluster.local', 'ClusterCoreDNS')];
const vnetDNS = [override('.', 'VnetDNS'), override('cluster.local', 'ClusterCoreDNS')];
const localDNS = (extra: Record<string, unknown>) => ({
  localDNS: {
    mode: 'Required',
    vnetDNSOverrides: vnetDNS,
    kubeDNSOverrides: kubeDNS,
    ...extra,
  },
});

describe('refused upstream, accepted before', () => {
  it('localDNS with only mode (the override lists are required)', () => {
    const required = validateAKSNodeClass({
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name: 'test' },
      spec: { localDNS: { mode: 'Preferred' } },
    }).filter((v) => v.rule === 'required');
    expect(required.map((v) => v.path)).toEqual([
      'spec.localDNS.vnetDNSOverrides',
      'spec.localDNS.kubeDNSOverrides',
    ]);
  });

  it.each([
    ['containerLogMaxSize', { kubelet: { containerLogMaxSize: '50' } }],
    ['swapFileSize', { kubelet: { failSwapOn: false }, linuxOSConfig: { swapFileSize: '1024' } }],
  ])('%s without a unit', (field, spec) => {
    expect(paths(spec)).toHaveLength(1);
    expect(paths(spec)[0]).toMatch(new RegExp(`${field}$`));
  });

  it('a *.cluster.local override forwarding to VnetDNS', () => {
    const spec = localDNS({
      kubeDNSOverrides: [...kubeDNS, override('svc.cluster.local', 'VnetDNS')],
    });
    expect(paths(spec)).toEqual(['spec.localDNS']);
  });

  it('the same zone twice in an override list', () => {
    const spec = localDNS({ kubeDNSOverrides: [...kubeDNS, override('.', 'ClusterCoreDNS')] });
    expect(paths(spec)).toEqual(['spec.localDNS.kubeDNSOverrides']);
  });
});

describe('accepted upstream, refused before', () => {
  it('mycluster.local forwarding to ClusterCoreDNS from vnetDNSOverrides', () => {
    const spec = localDNS({
      vnetDNSOverrides: [...vnetDNS, override('mycluster.local', 'ClusterCoreDNS')],
    });
    expect(paths(spec)).toEqual([]);
  });

  it('cpuCFSQuotaPeriod: "100"', () => {
    expect(paths({ kubelet: { cpuCFSQuotaPeriod: '100' } })).toEqual([]);
  });

  it('a vnetSubnetID longer than 1,024 characters', () => {
    const id = `/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/${'v'.repeat(1000)}/subnets/s`;
    expect(id.length).toBeGreaterThan(1024);
    expect(paths({ vnetSubnetID: id })).toEqual([]);
  });
});

describe('kept as upstream has them', () => {
  it('the root zone forwarded to ClusterCoreDNS from vnetDNSOverrides is refused', () => {
    const spec = localDNS({
      vnetDNSOverrides: [
        override('.', 'ClusterCoreDNS'),
        override('cluster.local', 'ClusterCoreDNS'),
      ],
    });
    expect(paths(spec)).toEqual(['spec.localDNS']);
  });

  it('both override lists need the zones "." and "cluster.local"', () => {
    const spec = localDNS({ kubeDNSOverrides: [override('.', 'ClusterCoreDNS')] });
    expect(paths(spec)).toEqual(['spec.localDNS']);
  });
});
