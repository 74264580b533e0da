import { afterEach, describe, expect, it } from 'vitest';
import {
  bootstrapScript,
  kubeletFlags,
  parseBootstrapEnv,
  type BootstrapInputs,
} from '../../src/launch/custom-data.js';
import { dnsServiceIPProblem, nodeIPFamily } from '../../src/launch/ip-family.js';
import { AzureCloudProvider } from '../../src/index.js';
import {
  BOOTSTRAP_TOKEN,
  CLUSTER,
  NODE_RG,
  REGION,
  SUBNET,
  SUBSCRIPTION,
  nodeClaim,
  startHarness,
  type Harness,
} from './harness.js';

const inputs: BootstrapInputs = {
  clusterName: 'test',
  clusterEndpoint: 'https://example:443',
  bootstrapToken: 'abc.def',
  labels: { 'karpenter.sh/nodepool': 'default' },
  taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }],
  startupTaints: [{ key: 'startup', effect: 'NoSchedule' }],
  maxPods: 30,
  kubeReserved: { cpu: 100, memory: 2 ** 30 },
  evictionMemoryAvailable: 750 * 2 ** 20,
  imageFamily: 'Ubuntu',
  nodeIPFamily: 'ipv4',
};

const registerWithTaints = (flags: string[]) =>
  flags
    .find((f) => f.startsWith('--register-with-taints='))
    ?.split('=')
    .slice(1)
    .join('=');

describe('kubelet flags in the bootstrap custom data', () => {
  it('registers the node with the karpenter.sh/unregistered taint, then the node claim taints and startup taints', () => {
    expect(registerWithTaints(kubeletFlags(inputs))).toBe(
      'karpenter.sh/unregistered:NoExecute,gpu=true:NoSchedule,startup:NoSchedule',
    );
  });

  it('does not repeat the unregistered taint when the node claim already carries it', () => {
    const flags = kubeletFlags({
      ...inputs,
      taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }],
      startupTaints: [],
    });
    expect(registerWithTaints(flags)).toBe('karpenter.sh/unregistered:NoExecute');
  });
});

describe('node IP family in the bootstrap custom data', () => {
  it('is derived from the DNS service IP as upstream does: IPv6 address => ipv6, else ipv4', () => {
    expect(nodeIPFamily('10.0.0.10')).toBe('ipv4');
    expect(nodeIPFamily('fd00:10:96::a')).toBe('ipv6');
    expect(nodeIPFamily(undefined)).toBe('ipv4');
    expect(() => nodeIPFamily('kube-dns')).toThrow(/"kube-dns" is not an IP address/);
  });

  it('refuses an IPv6 DNS service IP naming the rule (no IPv6 or dual-stack), and a non-IP', () => {
    expect(dnsServiceIPProblem('10.0.0.10')).toBeUndefined();
    expect(dnsServiceIPProblem('fd00:10:96::a')).toMatch(
      /IPv6 address \(fd00:10:96::a\).*IPv6 or dual-stack cluster.*IPv4 clusters only/,
    );
    expect(dnsServiceIPProblem('10.0.0')).toMatch(/must be an IPv4 address, got "10.0.0"/);
  });

  it('writes NODE_IP_FAMILY=ipv4 and pins the kubelet to its IPv4 address with --node-ip=0.0.0.0', () => {
    const env = parseBootstrapEnv(bootstrapScript({ ...inputs, clusterDNS: '10.0.0.10' }));
    expect(env['NODE_IP_FAMILY']).toBe('ipv4');
    const flags = (env['KUBELET_FLAGS'] ?? '').split(' ');
    expect(flags).toContain('--node-ip=0.0.0.0');
    expect(flags).toContain('--cluster-dns=10.0.0.10');
  });

  it('an IPv6 family would ask the kubelet for its IPv6 address (::)', () => {
    expect(kubeletFlags({ ...inputs, nodeIPFamily: 'ipv6' })).toContain('--node-ip=::');
  });
});

describe('node IP family of launched VMs', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('a launched VM boots with NODE_IP_FAMILY=ipv4 and --node-ip=0.0.0.0 (DNS service IP 10.0.0.10)', async () => {
    h = await startHarness();
    await h.provider.create(nodeClaim('general-ip001'));
    const env = parseBootstrapEnv(h.booted[0]?.customData ?? '');
    expect(env['NODE_IP_FAMILY']).toBe('ipv4');
    expect(env['KUBELET_FLAGS']?.split(' ')).toEqual(
      expect.arrayContaining(['--cluster-dns=10.0.0.10', '--node-ip=0.0.0.0']),
    );
  });

  it('the provider refuses an IPv6 DNS service IP at construction, naming the option', async () => {
    h = await startHarness();
    const clients = h.clients;
    const build = (dnsServiceIP: string) =>
      new AzureCloudProvider({
        clients,
        subscriptionId: SUBSCRIPTION,
        location: REGION,
        nodeResourceGroup: NODE_RG,
        clusterName: CLUSTER,
        clusterEndpoint: 'https://test-cluster-dns.hcp.southcentralus.azmk8s.io:443',
        kubeletBootstrapToken: BOOTSTRAP_TOKEN,
        sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE test',
        vnetSubnetID: SUBNET,
        dnsServiceIP,
        getNodeClass: async () => undefined,
      });
    expect(() => build('fd00:10:96::a')).toThrow(
      /azure provider: option dnsServiceIP is an IPv6 address .*IPv4 clusters only/,
    );
    expect(() => build('10.0.0.10')).not.toThrow();
  });
});
