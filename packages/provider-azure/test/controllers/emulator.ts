/**
 * The provider over the ARM emulator for the controllers' tests: SDK clients pointed at it, an
 * AzureCloudProvider with the tests' cluster settings, and a NodeClaim that provider launches.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import type { ArmEmulator } from '@karpenter-ts/arm-emulator';
import {
  AzureCloudProvider,
  allAzureSkus,
  createArmClients,
  type ArmClientOptions,
  type ArmClients,
  type AzureCloudProviderOptions,
} from '../../src/index.js';

/** The only VM size {@link emulatorAzureProvider} offers. */
export const EMULATOR_VM_SIZE = 'Standard_D2s_v3';

/** A credential that always answers the same bearer token, valid for an hour. */
export const staticTokenCredential: ArmClientOptions['credential'] = {
  getToken: async () => ({ token: 't', expiresOnTimestamp: Date.now() + 3600_000 }),
};

/**
 * SDK clients of subscription `subscriptionId` on `arm`, trusting its certificate, with
 * {@link staticTokenCredential} and short retries (1 retry, 5-20 ms) so fault tests stay quick.
 */
export function emulatorArmClients(arm: ArmEmulator, subscriptionId: string): ArmClients {
  return createArmClients({
    subscriptionId,
    credential: staticTokenCredential,
    endpoint: arm.url,
    ...(arm.ca ? { tlsCA: arm.ca } : {}),
    retry: { maxRetries: 1, retryDelayInMs: 5, maxRetryDelayInMs: 20 },
  });
}

/** What each test names for {@link emulatorAzureProvider}; any other option may be given too. */
export type EmulatorProviderOptions = Pick<
  AzureCloudProviderOptions,
  | 'clients'
  | 'subscriptionId'
  | 'nodeResourceGroup'
  | 'clusterName'
  | 'vnetSubnetID'
  | 'getNodeClass'
> &
  Partial<AzureCloudProviderOptions>;

/**
 * An AzureCloudProvider in `southcentralus` offering only {@link EMULATOR_VM_SIZE}, with the
 * cluster endpoint made from `clusterName`, fixed bootstrap token and SSH key, `random` 0 (first
 * offering wins) and 5 ms operation polling; `options` override any of these.
 */
export function emulatorAzureProvider(options: EmulatorProviderOptions): AzureCloudProvider {
  return new AzureCloudProvider({
    location: 'southcentralus',
    clusterEndpoint: `https://${options.clusterName}.hcp.southcentralus.azmk8s.io:443`,
    kubeletBootstrapToken: 'abcdef.0123456789abcdef',
    sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE test',
    skus: allAzureSkus().filter((s) => s.name === EMULATOR_VM_SIZE),
    random: () => 0,
    pollIntervalMs: 5,
    ...options,
  });
}

/** NodeClaim `name` on AKSNodeClass `default`, without a NodePool label, spec or status. */
export function aksNodeClaim(name: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name },
    spec: {
      nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' },
      requirements: [],
    },
  };
}

/**
 * NodeClaim `name` of NodePool `general` on AKSNodeClass `default` that
 * {@link emulatorAzureProvider} can launch: {@link EMULATOR_VM_SIZE}, on-demand, 500m cpu.
 */
export function launchableNodeClaim(name: string): NodeClaim {
  const claim = aksNodeClaim(name);
  return {
    ...claim,
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'general' } },
    spec: {
      ...claim.spec,
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [EMULATOR_VM_SIZE] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
      resources: { requests: { cpu: '500m' } },
    },
  };
}
