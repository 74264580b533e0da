import { describe, expect, it } from 'vitest';
import { describeAzureSettings, readAzureSettings } from '../src/providers/azure-settings.js';

const env = {
  AZURE_SUBSCRIPTION_ID: 'sub',
  AZURE_LOCATION: 'EastUS',
  AZURE_NODE_RESOURCE_GROUP: 'MC_rg_aks_eastus',
  VNET_SUBNET_ID:
    '/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s',
  CLUSTER_ENDPOINT: 'https://aks.hcp.eastus.azmk8s.io:443',
  KUBELET_BOOTSTRAP_TOKEN: 'abcdef.secretsecretsecr',
  SSH_PUBLIC_KEY: 'ssh-ed25519 AAAA',
};

describe('--provider azure settings', () => {
  it('reads upstream variable names, lower-cases the location and defaults to workload identity', () => {
    const s = readAzureSettings({ ...env, NODE_IDENTITIES: 'a, b', NETWORK_PLUGIN: 'none' });
    expect(s).toMatchObject({
      subscriptionId: 'sub',
      location: 'eastus',
      nodeResourceGroup: 'MC_rg_aks_eastus',
      nodeIdentities: ['a', 'b'],
      networkPlugin: 'none',
      credential: { mode: 'workload-identity' },
    });
  });

  it('names every missing or malformed variable at once', () => {
    const run = () =>
      readAzureSettings({
        VNET_SUBNET_ID: 'subnet-1',
        AZURE_CREDENTIAL_MODE: 'password',
        ARM_ENDPOINT: 'http://127.0.0.1:1',
      });
    expect(run).toThrow(/AZURE_SUBSCRIPTION_ID is required/);
    expect(run).toThrow(/AZURE_LOCATION \(or LOCATION\) is required/);
    expect(run).toThrow(/VNET_SUBNET_ID must be a subnet ARM ID/);
    expect(run).toThrow(/AZURE_CREDENTIAL_MODE must be/);
    expect(run).toThrow(/ARM_ENDPOINT must be an https/);
  });

  it('takes AKS_NODE_IMAGE_VERSION as an optional pin of the node image version', () => {
    expect(readAzureSettings(env).nodeImageVersion).toBeUndefined();
    expect(readAzureSettings({ ...env, AKS_NODE_IMAGE_VERSION: '202506.10.0' })).toMatchObject({
      nodeImageVersion: '202506.10.0',
    });
    expect(() => readAzureSettings({ ...env, AKS_NODE_IMAGE_VERSION: 'latest' })).toThrow(
      /AKS_NODE_IMAGE_VERSION must be a gallery image version such as 202506.10.0, got "latest"/,
    );
  });

  it('reads SYSTEM_NAMESPACE, the namespace of the maintenance window ConfigMap', () => {
    expect(readAzureSettings({ ...env, SYSTEM_NAMESPACE: 'karpenter' }).systemNamespace).toBe(
      'karpenter',
    );
    expect(readAzureSettings(env).systemNamespace).toBeUndefined();
  });

  it('never puts the bootstrap token in what it logs', () => {
    const logged = JSON.stringify(describeAzureSettings(readAzureSettings(env)));
    expect(logged).not.toContain('secretsecr');
    expect(logged).toContain('MC_rg_aks_eastus');
  });
});

describe('--provider azure settings: DNS_SERVICE_IP and the node IP family', () => {
  it('accepts an IPv4 DNS service IP (an IPv4 cluster) and no DNS service IP at all', () => {
    expect(readAzureSettings({ ...env, DNS_SERVICE_IP: '10.0.0.10' }).dnsServiceIP).toBe(
      '10.0.0.10',
    );
    expect(readAzureSettings(env).dnsServiceIP).toBeUndefined();
  });

  it('refuses an IPv6 DNS service IP at start, naming DNS_SERVICE_IP and the IPv4-only rule', () => {
    expect(() => readAzureSettings({ ...env, DNS_SERVICE_IP: 'fd00:10:96::a' })).toThrow(
      /--provider azure: DNS_SERVICE_IP is an IPv6 address \(fd00:10:96::a\).*IPv6 or dual-stack cluster.*IPv4 clusters only/,
    );
  });

  it('refuses a DNS service IP that is no IP address, together with the other problems', () => {
    const run = () =>
      readAzureSettings({ ...env, AZURE_SUBSCRIPTION_ID: '', DNS_SERVICE_IP: 'kube-dns' });
    expect(run).toThrow(/AZURE_SUBSCRIPTION_ID is required/);
    expect(run).toThrow(/DNS_SERVICE_IP must be an IPv4 address, got "kube-dns"/);
  });
});
