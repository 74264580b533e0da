/**
 * AKSNodeClass documents upstream's CRD (Azure/karpenter-provider-azure, August 2026 main)
 * judges differently from the rules we had rewritten (issue 15, Validation 7): each case here
 * disagreed before.
 */
import { describe, expect, it } from 'vitest';
import { validate, validateNodePoolRuntime } from '@karpenter-ts/api';
import {
  AzureLabelDomain,
  AzureWellKnownLabels,
  AzureWellKnownValues,
  azureKarpenterValidators,
  validateAKSNodeClass,
} from '../src/index.js';

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

describe("karpenter.sh objects as the Azure provider's CRDs and NodePool validation judge them (Validation 3)", () => {
  const requirements = (key: string, values = ['x'], operator = 'In') => [
    { key, operator, values },
  ];
  const nodePool = (labels: Record<string, string>, reqs: unknown[]) => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'p' },
    spec: {
      template: {
        metadata: { labels },
        spec: {
          nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
          requirements: reqs,
        },
      },
    },
  });
  const validators = azureKarpenterValidators();
  const refused = (obj: unknown) =>
    validate(obj, { validators })
      .filter((v) => v.apiServer === 'reject')
      .map((v) => v.path);

  it.each([
    ['kubernetes.azure.com/agentpool', true],
    ['kubernetes.azure.com/network-policy', false],
    ['kubernetes.azure.com/ebpf-host-routing', false],
    ['karpenter.azure.com/sku-hyperv-generation', true],
    ['karpenter.azure.com/sku-family', false],
    ['agentpool', true],
    ['storageprofile', true],
    ['accelerator', true],
    ['example.com/team', false],
  ])('requirement key %s refused: %s (the core CRD refuses none)', (key, isRefused) => {
    const pool = nodePool({}, requirements(key));
    expect(validate(pool)).toEqual([]);
    expect(refused(pool)).toEqual(isRefused ? ['spec.template.spec.requirements[0].key'] : []);
  });

  it('template labels in kubernetes.azure.com and bare AKS keys are refused, allowed ones accepted', () => {
    const pool = nodePool(
      {
        'kubernetes.azure.com/mode': 'user',
        'kubernetes.azure.com/role': 'agent',
        storagetier: 'x',
      },
      requirements('kubernetes.io/arch', ['amd64']),
    );
    expect(validate(pool)).toEqual([]);
    // A rule over the map is reported on the entry that breaks it.
    expect(refused(pool)).toEqual([
      'spec.template.metadata.labels[kubernetes.azure.com/role]',
      'spec.template.metadata.labels.storagetier',
    ]);
  });

  it('NodeClaims and NodeOverlays get the same requirement key rules', () => {
    const claim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'c' },
      spec: {
        nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
        requirements: requirements('kubernetes.azure.com/kubelet-identity-client-id'),
      },
    };
    const overlay = {
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name: 'o' },
      spec: { requirements: requirements('karpenter.azure.com/sku-hyperv-generation'), price: '1' },
    };
    expect(validate(claim)).toEqual([]);
    expect(validate(overlay)).toEqual([]);
    expect(refused(claim)).toEqual(['spec.requirements[0].key']);
    expect(refused(overlay)).toEqual(['spec.requirements[0].key']);
  });

  it.each([
    ['karpenter.sh/capacity-type', ['reserved'], true],
    ['karpenter.sh/capacity-type', ['spot', 'reserved'], false],
    ['kubernetes.azure.com/mode', ['System'], true],
    ['kubernetes.azure.com/mode', ['system'], false],
    ['kubernetes.azure.com/scalesetpriority', ['Spot'], true],
    ['kubernetes.azure.com/os-sku', ['ubuntu'], true],
    ['kubernetes.azure.com/os-sku', ['AzureLinux'], false],
    ['kubernetes.azure.com/fips_enabled', ['yes'], true],
    ['karpenter.azure.com/sku-gpu-manufacturer', ['NVIDIA'], true],
    ['karpenter.azure.com/placement-scope', ['zone'], true],
  ])('runtime: %s In %j makes the NodePool not ready: %s', (key, values, notReady) => {
    const pool = nodePool({}, requirements(key, values));
    const runtime = validateNodePoolRuntime(pool as never, {
      extraWellKnownLabels: AzureWellKnownLabels,
      extraRestrictedDomains: [AzureLabelDomain],
      wellKnownValues: AzureWellKnownValues,
    });
    expect(runtime.map((v) => v.path)).toEqual(
      notReady ? ['spec.template.spec.requirements[0].values'] : [],
    );
  });
});
