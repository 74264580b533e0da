/**
 * Settings of `--provider azure`, read from the environment under upstream
 * `Azure/karpenter-provider-azure`'s names (`AZURE_SUBSCRIPTION_ID`, `AZURE_NODE_RESOURCE_GROUP`,
 * `VNET_SUBNET_ID`, `CLUSTER_ENDPOINT`, ...) plus a few of our own for what upstream resolves at runtime (the
 * location, an optional node image version pin) and for tests (`ARM_ENDPOINT`, `ARM_CA_FILE`). Secrets
 * (`KUBELET_BOOTSTRAP_TOKEN`, credential variables) are kept out of {@link describeAzureSettings}.
 */
import { readFileSync } from 'node:fs';
import {
  DiskEncryptionSetIDForm,
  dnsServiceIPProblem,
  parseDiskEncryptionSetID,
  sshPublicKeyProblem,
  type AzureCredentialOptions,
} from '@karpenter-ts/provider-azure';

/** An Azure subscription ID: a GUID, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in hex. */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Kubernetes bootstrap token, `<token-id>.<token-secret>` (the kubeadm/bootstrap-token format). */
const BOOTSTRAP_TOKEN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;

/** Whether `value` is an `https://` URL with a host (port optional), as `CLUSTER_ENDPOINT` must be. */
function isHttpsURLWithHost(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** What the Azure provider needs from the environment. */
export interface AzureSettings {
  readonly subscriptionId: string;
  /** ARM region, e.g. `eastus` (`AZURE_LOCATION`, else `LOCATION`). */
  readonly location: string;
  readonly nodeResourceGroup: string;
  readonly vnetSubnetID: string;
  readonly clusterEndpoint: string;
  /** Secret: only ever written into VM custom data. */
  readonly kubeletBootstrapToken: string;
  readonly sshPublicKey: string;
  /**
   * Cluster DNS ClusterIP (`DNS_SERVICE_IP`), an IPv4 address: the node IP family is derived from
   * it (IPv4 only; an IPv6 address is refused, as AKS's Karpenter supports no IPv6/dual-stack).
   */
  readonly dnsServiceIP?: string;
  readonly nodeIdentities: readonly string[];
  readonly kubeletIdentityClientID?: string;
  readonly networkPlugin?: 'azure' | 'none';
  readonly networkPluginMode?: 'overlay' | '';
  readonly vmMemoryOverheadPercent?: number;
  readonly adminUsername?: string;
  /**
   * OS disk encryption set (`NODE_OSDISK_DISKENCRYPTIONSET_ID`, upstream's name): a
   * `Microsoft.Compute/diskEncryptionSets` ARM ID put on every VM's OS disk, whose
   * `ValidationSucceeded` checks the controller can read it. Unset: platform-managed keys.
   */
  readonly diskEncryptionSetID?: string;
  /**
   * Pin of the node image version (`AKS_NODE_IMAGE_VERSION`, e.g. `202506.10.0`): used for every
   * image definition instead of the gallery's newest. Unset (the default): the newest, as upstream.
   */
  readonly nodeImageVersion?: string;
  /**
   * Namespace of the maintenance window ConfigMap (`SYSTEM_NAMESPACE`, upstream's name); unset:
   * the pod's namespace, else `kube-system`.
   */
  readonly systemNamespace?: string;
  /** ARM endpoint override (`ARM_ENDPOINT`); default the public cloud. */
  readonly armEndpoint?: string;
  /** PEM of extra CA certificates for ARM (read from `ARM_CA_FILE`). */
  readonly armCA?: string;
  /** How to authenticate (`AZURE_CREDENTIAL_MODE`: workload-identity (default), managed-identity, environment). */
  readonly credential: AzureCredentialOptions;
}

/**
 * Reads the settings from `env`. Raises Error naming every missing or malformed variable at
 * once (no partial configuration): `AZURE_SUBSCRIPTION_ID` not a GUID, `CLUSTER_ENDPOINT` not an
 * `https://` URL with a host, `KUBELET_BOOTSTRAP_TOKEN` not a bootstrap token
 * (`[a-z0-9]{6}.[a-z0-9]{16}`), `SSH_PUBLIC_KEY` not an OpenSSH public key line of a type Azure
 * accepts ({@link sshPublicKeyProblem}), a `DNS_SERVICE_IP` that is not an IPv4 address (IPv6
 * means an IPv6/dual-stack cluster, unsupported), a `NODE_OSDISK_DISKENCRYPTIONSET_ID` that is not
 * a disk encryption set ARM ID, and the enumerations below; never includes a secret's value in
 * the message.
 */
export function readAzureSettings(env: NodeJS.ProcessEnv): AzureSettings {
  const problems: string[] = [];
  const get = (name: string): string => (env[name] ?? '').trim();
  const required = (name: string, alt?: string): string => {
    const v = get(name) || (alt ? get(alt) : '');
    if (v === '') problems.push(`${name}${alt ? ` (or ${alt})` : ''} is required`);
    return v;
  };
  const subscriptionId = required('AZURE_SUBSCRIPTION_ID');
  if (subscriptionId !== '' && !GUID.test(subscriptionId))
    problems.push(
      `AZURE_SUBSCRIPTION_ID must be a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as az account show --query id -o tsv prints), got ${JSON.stringify(subscriptionId)}`,
    );
  // ARM compares locations case-insensitively (EastUS is eastus), but a display name such as
  // "East US" is no location at all and would only fail at the first launch.
  const locationSetting = required('AZURE_LOCATION', 'LOCATION');
  const location = locationSetting.toLowerCase();
  if (location !== '' && !/^[a-z0-9]+$/.test(location))
    problems.push(
      `AZURE_LOCATION must be an Azure region name such as eastus or westeurope (lowercase letters and digits, as az account list-locations --query [].name prints), got ${JSON.stringify(locationSetting)}`,
    );
  const nodeResourceGroup = required('AZURE_NODE_RESOURCE_GROUP');
  const vnetSubnetID = required('VNET_SUBNET_ID');
  if (
    vnetSubnetID !== '' &&
    !/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Network\/virtualNetworks\/[^/]+\/subnets\/[^/]+$/i.test(
      vnetSubnetID,
    )
  )
    problems.push(
      'VNET_SUBNET_ID must be a subnet ARM ID (/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>)',
    );
  // A wrong endpoint or token is not seen by ARM: the VMs launch, are billed, and never join.
  const clusterEndpoint = required('CLUSTER_ENDPOINT');
  if (clusterEndpoint !== '' && !isHttpsURLWithHost(clusterEndpoint))
    problems.push(
      `CLUSTER_ENDPOINT must be an https:// URL with a host, port optional (https://<fqdn>:443 of the API server), got ${JSON.stringify(clusterEndpoint)}`,
    );
  const kubeletBootstrapToken = required('KUBELET_BOOTSTRAP_TOKEN');
  if (kubeletBootstrapToken !== '' && !BOOTSTRAP_TOKEN.test(kubeletBootstrapToken))
    problems.push(
      'KUBELET_BOOTSTRAP_TOKEN must be a Kubernetes bootstrap token <token-id>.<token-secret> matching [a-z0-9]{6}.[a-z0-9]{16} (value not shown: it is a secret)',
    );
  const sshPublicKey = required('SSH_PUBLIC_KEY');
  const sshProblem = sshPublicKey === '' ? undefined : sshPublicKeyProblem(sshPublicKey);
  if (sshProblem !== undefined) problems.push(`SSH_PUBLIC_KEY ${sshProblem}`);

  const plugin = get('NETWORK_PLUGIN');
  if (plugin !== '' && plugin !== 'azure' && plugin !== 'none')
    problems.push(`NETWORK_PLUGIN must be azure or none, got ${JSON.stringify(plugin)}`);
  const pluginMode = env['NETWORK_PLUGIN_MODE'];
  if (pluginMode !== undefined && pluginMode !== 'overlay' && pluginMode !== '')
    problems.push(
      `NETWORK_PLUGIN_MODE must be overlay or empty, got ${JSON.stringify(pluginMode)}`,
    );
  const overhead = get('VM_MEMORY_OVERHEAD_PERCENT');
  const overheadValue = overhead === '' ? undefined : Number(overhead);
  if (overheadValue !== undefined && !(overheadValue >= 0 && overheadValue < 1))
    problems.push(
      `VM_MEMORY_OVERHEAD_PERCENT must be a fraction in [0, 1), got ${JSON.stringify(overhead)}`,
    );

  const mode = get('AZURE_CREDENTIAL_MODE') || 'workload-identity';
  let credential: AzureCredentialOptions = { mode: 'workload-identity' };
  if (mode === 'managed-identity') {
    const clientId = get('AZURE_CLIENT_ID');
    credential = clientId ? { mode, clientId } : { mode };
  } else if (mode === 'environment') credential = { mode };
  else if (mode !== 'workload-identity')
    problems.push(
      `AZURE_CREDENTIAL_MODE must be workload-identity, managed-identity or environment, got ${JSON.stringify(mode)}`,
    );

  let armCA: string | undefined;
  const caFile = get('ARM_CA_FILE');
  if (caFile !== '') {
    try {
      armCA = readFileSync(caFile, 'utf8');
    } catch (err) {
      problems.push(`ARM_CA_FILE ${caFile} cannot be read: ${(err as Error).message}`);
    }
  }
  const armEndpoint = get('ARM_ENDPOINT');
  if (armEndpoint !== '' && !/^https:\/\//.test(armEndpoint))
    problems.push('ARM_ENDPOINT must be an https:// URL (the Azure SDK refuses plain HTTP)');

  const pin = get('AKS_NODE_IMAGE_VERSION');
  // Gallery image versions are named major.minor.patch (AKS: 202506.10.0).
  if (pin !== '' && !/^\d+\.\d+\.\d+$/.test(pin))
    problems.push(
      `AKS_NODE_IMAGE_VERSION must be a gallery image version such as 202506.10.0, got ${JSON.stringify(pin)}`,
    );

  // The node IP family is derived from the DNS service IP (upstream's rule); IPv6 and
  // dual-stack clusters are not supported, so refuse them at start, not at the first launch.
  const dns = get('DNS_SERVICE_IP');
  const dnsProblem = dns === '' ? undefined : dnsServiceIPProblem(dns);
  if (dnsProblem !== undefined) problems.push(`DNS_SERVICE_IP ${dnsProblem}`);

  // A malformed set would fail every VM create; upstream parses it at start too.
  const des = get('NODE_OSDISK_DISKENCRYPTIONSET_ID');
  if (des !== '' && parseDiskEncryptionSetID(des) === undefined)
    problems.push(
      `NODE_OSDISK_DISKENCRYPTIONSET_ID must be a disk encryption set ARM ID (${DiskEncryptionSetIDForm}), got ${JSON.stringify(des)}`,
    );

  if (problems.length > 0) throw new Error(`--provider azure: ${problems.join('; ')}`);

  const optional = (name: string): string | undefined => get(name) || undefined;
  const dnsServiceIP = optional('DNS_SERVICE_IP');
  const kubeletIdentityClientID = optional('KUBELET_IDENTITY_CLIENT_ID');
  const adminUsername = optional('LINUX_ADMIN_USERNAME');
  const systemNamespace = optional('SYSTEM_NAMESPACE');
  return {
    subscriptionId,
    location,
    nodeResourceGroup,
    vnetSubnetID,
    clusterEndpoint,
    kubeletBootstrapToken,
    sshPublicKey,
    nodeIdentities: get('NODE_IDENTITIES')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    credential,
    ...(dnsServiceIP ? { dnsServiceIP } : {}),
    ...(kubeletIdentityClientID ? { kubeletIdentityClientID } : {}),
    ...(adminUsername ? { adminUsername } : {}),
    ...(pin ? { nodeImageVersion: pin } : {}),
    ...(des ? { diskEncryptionSetID: des } : {}),
    ...(systemNamespace ? { systemNamespace } : {}),
    ...(plugin === 'azure' || plugin === 'none' ? { networkPlugin: plugin } : {}),
    ...(pluginMode === 'overlay' || pluginMode === '' ? { networkPluginMode: pluginMode } : {}),
    ...(overheadValue !== undefined ? { vmMemoryOverheadPercent: overheadValue } : {}),
    ...(armEndpoint ? { armEndpoint } : {}),
    ...(armCA !== undefined ? { armCA } : {}),
  };
}

/** The settings safe to log: no token, no credential secrets, no CA body. */
export function describeAzureSettings(s: AzureSettings): Record<string, unknown> {
  return {
    subscriptionId: s.subscriptionId,
    location: s.location,
    nodeResourceGroup: s.nodeResourceGroup,
    vnetSubnetID: s.vnetSubnetID,
    clusterEndpoint: s.clusterEndpoint,
    credentialMode: s.credential.mode,
    nodeImageVersion: s.nodeImageVersion ?? 'newest in the community gallery',
    diskEncryptionSetID: s.diskEncryptionSetID ?? 'none (platform-managed keys)',
    armEndpoint: s.armEndpoint ?? 'public cloud',
  };
}
