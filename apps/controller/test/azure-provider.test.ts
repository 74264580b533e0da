import { describe, expect, it } from 'vitest';
import { aksNodeImages } from '../src/providers/azure-nodeclass.js';
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

  it('never puts the bootstrap token in what it logs', () => {
    const logged = JSON.stringify(describeAzureSettings(readAzureSettings(env)));
    expect(logged).not.toContain('secretsecr');
    expect(logged).toContain('MC_rg_aks_eastus');
  });
});

describe('AKSNodeClass node images', () => {
  const ids = (r: ReturnType<typeof aksNodeImages>) =>
    typeof r === 'string' ? r : (r ?? []).map((i) => i.id.split('/')[4]);

  it('resolves Ubuntu to 24.04 from Kubernetes 1.34 and to 22.04 before, Gen2 first', () => {
    expect(ids(aksNodeImages({}, '1.34.0', 'v1'))).toEqual([
      '2404gen2containerd',
      '2404containerd',
      '2404gen2arm64containerd',
    ]);
    expect(ids(aksNodeImages({ imageFamily: 'Ubuntu' }, '1.33.2', 'v1'))[0]).toBe(
      '2204gen2containerd',
    );
  });

  it('resolves AzureLinux to version 3 from Kubernetes 1.32 and trusted launch to TL images', () => {
    expect(ids(aksNodeImages({ imageFamily: 'AzureLinux' }, '1.32.1', 'v1'))[0]).toBe('V3gen2');
    expect(ids(aksNodeImages({ imageFamily: 'AzureLinux' }, '1.31.9', 'v1'))[0]).toBe('V2gen2');
    expect(
      ids(aksNodeImages({ security: { trustedLaunch: { vtpm: true } } }, '1.36.0', 'v1')),
    ).toEqual(['2204gen2TLcontainerd']);
  });

  it('selects images by arch and Hyper-V generation and refuses FIPS', () => {
    const images = aksNodeImages({}, '1.36.3', '202501.01.0');
    expect(typeof images === 'string' ? [] : images?.[1]).toEqual({
      id: '/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2404containerd/versions/202501.01.0',
      requirements: [
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
        { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['1'] },
      ],
    });
    expect(aksNodeImages({ fipsMode: 'FIPS' }, '1.36.3', 'v1')).toMatch(/shared image gallery/);
  });
});
