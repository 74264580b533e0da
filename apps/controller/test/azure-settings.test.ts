import { describe, expect, it } from 'vitest';
import { readAzureSettings } from '../src/providers/azure-settings.js';

const env = {
  AZURE_SUBSCRIPTION_ID: 'sub',
  AZURE_LOCATION: 'eastus',
  AZURE_NODE_RESOURCE_GROUP: 'MC_rg_aks_eastus',
  VNET_SUBNET_ID:
    '/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s',
  CLUSTER_ENDPOINT: 'https://aks.hcp.eastus.azmk8s.io:443',
  KUBELET_BOOTSTRAP_TOKEN: 'abcdef.secretsecretsecr',
  SSH_PUBLIC_KEY: 'ssh-ed25519 AAAA',
};

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
