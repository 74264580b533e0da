import { describe, expect, it } from 'vitest';
import { describeAzureSettings, readAzureSettings } from '../src/providers/azure-settings.js';

const SUBSCRIPTION = '12345678-1234-1234-1234-123456789abc';

/** Public keys made with ssh-keygen (private halves discarded). */
const ED25519_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBkL7b4Wb0lQq3ZsQ0vVt9YrHq1u2m9yC0mF0tN2fYxZ admin@example';
const RSA_2048_KEY =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDOWkewVNzXFjGlp5yC/wBE0OVcbcH87XkNBMpzqTOP1qQL7a1ns/b+pXRRaJxH7AwHM7V3ASkcNZDpul1kidFgIy2rWq6ULZEMWqR5QGJq+AA8gwXU9AXxaR0Bncp4W9zVUWSSA+E7f/1Y8Sz0LLftjCU104doy7AFGJQhPOhoUvMWTbAoZvWNGt8t48NeHaZq18FanGDE2GuwuiB2UWH6cpYbWGmPzsc40QuLX95Q3yXY58lx7zlvBj7/0i0wN6A9kfn//NCUQgMKc7IzKV9Uw1WJyyrLRL8nChBDT+jtMhdgVZwvQ4ztjr3m71Dgopz/hAiGRAjK8WnCUcIhJEoN ci@example';
const RSA_1024_KEY =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDadB3rWHdQoOQklGge02OBiFSkkQKnR+xIh6vjZs3/Om5uZLvKUuewToOGPhAJumo4C0WAeaoPvIoMaiPNZRtSvBIzqpiX33BlU+rPjLANjuEsweK7QyhThFeH/hVRzw+DvEW5VBiOLX8DiFFfkZB/MFwz2v1HzWkMDBYJQz4kjQ== short';
const TOKEN = 'abcdef.0123456789abcdef';

const env = {
  AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
  AZURE_LOCATION: 'EastUS',
  AZURE_NODE_RESOURCE_GROUP: 'MC_rg_aks_eastus',
  VNET_SUBNET_ID: `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s`,
  CLUSTER_ENDPOINT: 'https://aks.hcp.eastus.azmk8s.io:443',
  KUBELET_BOOTSTRAP_TOKEN: TOKEN,
  SSH_PUBLIC_KEY: ED25519_KEY,
};

/** The error message `readAzureSettings` raises for `env`, or '' when it accepts it. */
function problemsOf(overrides: Record<string, string>): string {
  try {
    readAzureSettings({ ...env, ...overrides });
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

describe('--provider azure settings', () => {
  it('reads upstream variable names, lower-cases the location and defaults to workload identity', () => {
    const s = readAzureSettings({ ...env, NODE_IDENTITIES: 'a, b', NETWORK_PLUGIN: 'none' });
    expect(s).toMatchObject({
      subscriptionId: SUBSCRIPTION,
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
    expect(logged).not.toContain('0123456789abcdef');
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

describe('--provider azure settings: values that would launch VMs that never join', () => {
  it('accepts a GUID subscription ID in either case and refuses anything else, naming the rule', () => {
    expect(problemsOf({ AZURE_SUBSCRIPTION_ID: SUBSCRIPTION.toUpperCase() })).toBe('');
    expect(problemsOf({ AZURE_SUBSCRIPTION_ID: 'not-a-guid' })).toMatch(
      /AZURE_SUBSCRIPTION_ID must be a GUID \(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.*got "not-a-guid"/,
    );
    // One hex digit short, and a non-hex digit.
    expect(problemsOf({ AZURE_SUBSCRIPTION_ID: SUBSCRIPTION.slice(0, -1) })).toMatch(
      /AZURE_SUBSCRIPTION_ID must be a GUID/,
    );
    expect(problemsOf({ AZURE_SUBSCRIPTION_ID: SUBSCRIPTION.replace('a', 'g') })).toMatch(
      /AZURE_SUBSCRIPTION_ID must be a GUID/,
    );
  });

  it('accepts CLUSTER_ENDPOINT as an https URL with a host, with or without a port', () => {
    expect(problemsOf({ CLUSTER_ENDPOINT: 'https://my-aks-dns-1a2b.hcp.eastus.azmk8s.io' })).toBe(
      '',
    );
    expect(problemsOf({ CLUSTER_ENDPOINT: 'https://10.0.0.1:6443' })).toBe('');
  });

  it('refuses a CLUSTER_ENDPOINT without https:// or without a host, naming the rule', () => {
    for (const bad of ['my-aks.example', 'http://my-aks.example:443', 'https://', 'https://:443'])
      expect(problemsOf({ CLUSTER_ENDPOINT: bad })).toContain(
        `CLUSTER_ENDPOINT must be an https:// URL with a host, port optional (https://<fqdn>:443 of the API server), got ${JSON.stringify(bad)}`,
      );
  });

  it('accepts a bootstrap token <6 of [a-z0-9]>.<16 of [a-z0-9]>', () => {
    expect(problemsOf({ KUBELET_BOOTSTRAP_TOKEN: '07401b.f395accd246ae52d' })).toBe('');
  });

  it('refuses a malformed bootstrap token, naming the format but never the value', () => {
    for (const bad of [
      'notatoken',
      'ABCDEF.0123456789ABCDEF', // upper case
      'abcdef.0123456789abcde', // secret one character short
      'abcdef:0123456789abcdef',
      'abcdef.0123456789abcdef.x',
    ]) {
      const message = problemsOf({ KUBELET_BOOTSTRAP_TOKEN: bad });
      expect(message).toContain(
        'KUBELET_BOOTSTRAP_TOKEN must be a Kubernetes bootstrap token <token-id>.<token-secret> matching [a-z0-9]{6}.[a-z0-9]{16} (value not shown: it is a secret)',
      );
      expect(message).not.toContain(bad);
    }
  });

  it('accepts ssh-ed25519 keys and ssh-rsa keys of 2048 bits, with or without a comment', () => {
    expect(problemsOf({ SSH_PUBLIC_KEY: ED25519_KEY })).toBe('');
    expect(problemsOf({ SSH_PUBLIC_KEY: RSA_2048_KEY })).toBe('');
    expect(problemsOf({ SSH_PUBLIC_KEY: RSA_2048_KEY.replace(/ ci@example$/, '') })).toBe('');
    expect(readAzureSettings({ ...env, SSH_PUBLIC_KEY: RSA_2048_KEY }).sshPublicKey).toBe(
      RSA_2048_KEY,
    );
  });

  it('names SSH_PUBLIC_KEY when provider-azure refuses the key (its rules: test/launch/ssh-public-key.test.ts there)', () => {
    expect(problemsOf({ SSH_PUBLIC_KEY: 'hello' })).toMatch(
      /SSH_PUBLIC_KEY must be an OpenSSH public key line "<type> <base64 key> \[comment\]"/,
    );
    expect(problemsOf({ SSH_PUBLIC_KEY: RSA_1024_KEY })).toContain(
      'SSH_PUBLIC_KEY is a 1024-bit ssh-rsa key; Azure VMs require RSA keys of 2048 bits or more',
    );
  });

  it('refuses a location that is not an ARM region name, naming the form', () => {
    expect(problemsOf({ AZURE_LOCATION: 'East US' })).toContain(
      'AZURE_LOCATION must be an Azure region name such as eastus or westeurope (lowercase letters and digits, as az account list-locations --query [].name prints), got "East US"',
    );
    // ARM compares locations case-insensitively; the settings keep the lowercase form.
    expect(problemsOf({ AZURE_LOCATION: 'WestEurope' })).toBe('');
  });

  it("reports a new user's four mistakes at once", () => {
    const message = problemsOf({
      AZURE_SUBSCRIPTION_ID: 'not-a-guid',
      CLUSTER_ENDPOINT: 'my-aks.example',
      KUBELET_BOOTSTRAP_TOKEN: 'notatoken',
      SSH_PUBLIC_KEY: 'hello',
    });
    for (const name of [
      'AZURE_SUBSCRIPTION_ID must be a GUID',
      'CLUSTER_ENDPOINT must be an https:// URL',
      'KUBELET_BOOTSTRAP_TOKEN must be a Kubernetes bootstrap token',
      'SSH_PUBLIC_KEY must be an OpenSSH public key line',
    ])
      expect(message).toContain(name);
    expect(message).not.toContain('notatoken');
  });
});

describe('--provider azure settings: NODE_OSDISK_DISKENCRYPTIONSET_ID', () => {
  const DES = `/subscriptions/${SUBSCRIPTION}/resourceGroups/security/providers/Microsoft.Compute/diskEncryptionSets/nodes-des`;

  it('is optional: without it OS disks use platform-managed keys', () => {
    expect(readAzureSettings(env)).not.toHaveProperty('diskEncryptionSetID');
    expect(readAzureSettings({ ...env, NODE_OSDISK_DISKENCRYPTIONSET_ID: ' ' })).not.toHaveProperty(
      'diskEncryptionSetID',
    );
  });

  it('reads a disk encryption set ARM ID (any case of the segment names) and logs it', () => {
    const s = readAzureSettings({ ...env, NODE_OSDISK_DISKENCRYPTIONSET_ID: DES });
    expect(s.diskEncryptionSetID).toBe(DES);
    expect(describeAzureSettings(s)).toMatchObject({ diskEncryptionSetID: DES });
    expect(describeAzureSettings(readAzureSettings(env))).toMatchObject({
      diskEncryptionSetID: 'none (platform-managed keys)',
    });
    const lower = DES.toLowerCase();
    expect(
      readAzureSettings({ ...env, NODE_OSDISK_DISKENCRYPTIONSET_ID: lower }).diskEncryptionSetID,
    ).toBe(lower);
  });

  it('refuses at start what is no disk encryption set ARM ID, naming the setting and the form', () => {
    for (const bad of [
      'nodes-des',
      DES.replace('diskEncryptionSets', 'disks'),
      `${DES}/keys/k`,
      env.VNET_SUBNET_ID,
    ])
      expect(problemsOf({ NODE_OSDISK_DISKENCRYPTIONSET_ID: bad })).toContain(
        `NODE_OSDISK_DISKENCRYPTIONSET_ID must be a disk encryption set ARM ID (/subscriptions/<subscription>/resourceGroups/<rg>/providers/Microsoft.Compute/diskEncryptionSets/<name>), got ${JSON.stringify(bad)}`,
      );
  });

  it('is reported together with the other problems', () => {
    const message = problemsOf({
      AZURE_SUBSCRIPTION_ID: '',
      NODE_OSDISK_DISKENCRYPTIONSET_ID: 'x',
    });
    expect(message).toContain('AZURE_SUBSCRIPTION_ID is required');
    expect(message).toContain('NODE_OSDISK_DISKENCRYPTIONSET_ID must be a disk encryption set');
  });
});
