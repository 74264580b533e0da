// Test harness: the real provider over the real Azure SDKs against an in-process ARM emulator.
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import type { NodeClaim } from '@karpenter-ts/api';
import {
  startArmEmulator,
  type ArmEmulator,
  type BootedVirtualMachine,
} from '@karpenter-ts/arm-emulator';
import {
  AzureCloudProvider,
  allAzureSkus,
  createArmClients,
  type AKSNodeClass,
  type AzureCloudProviderOptions,
  type ArmClients,
} from '../../src/index.js';

export const SUBSCRIPTION = '00000000-0000-0000-0000-0000000000aa';
export const NODE_RG = 'MC_rg_test-cluster_southcentralus';
export const REGION = 'southcentralus';
export const CLUSTER = 'test-cluster';
export const SUBNET = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes`;
export const IDENTITY = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet`;
export const GEN2_IMAGE =
  '/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202501.01.0';
export const GEN1_IMAGE =
  '/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204containerd/versions/202501.01.0';
export const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';

/** A credential returning a fixed token (tests only). */
export const staticCredential: TokenCredential = {
  getToken: async (): Promise<AccessToken> => ({
    token: 'test-token',
    expiresOnTimestamp: Date.now() + 3600_000,
  }),
};

/** A ready AKSNodeClass `default` with gen1 and gen2 Ubuntu images. */
export function readyNodeClass(spec: AKSNodeClass['spec'] = {}, name = 'default'): AKSNodeClass {
  return {
    apiVersion: 'karpenter.azure.com/v1beta1',
    kind: 'AKSNodeClass',
    metadata: { name, generation: 1 },
    spec: { imageFamily: 'Ubuntu', osDiskSizeGB: 128, ...spec },
    status: {
      kubernetesVersion: '1.33.2',
      images: [
        {
          id: GEN2_IMAGE,
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['2'] },
          ],
        },
        {
          id: GEN1_IMAGE,
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'karpenter.azure.com/sku-hyperv-generation', operator: 'In', values: ['1'] },
          ],
        },
      ],
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 1,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  };
}

/** A NodeClaim of NodePool `general` for the given instance types and capacity types. */
export function nodeClaim(
  name: string,
  options: {
    instanceTypes?: string[];
    capacityTypes?: string[];
    zones?: string[];
    requests?: Record<string, string>;
    taints?: NodeClaim['spec']['taints'];
    nodeClass?: string;
    /** Require placement scope zonal (no regional offerings). */
    zonal?: boolean;
  } = {},
): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'general' } },
    spec: {
      nodeClassRef: {
        group: 'karpenter.azure.com',
        kind: 'AKSNodeClass',
        name: options.nodeClass ?? 'default',
      },
      requirements: [
        {
          key: 'node.kubernetes.io/instance-type',
          operator: 'In',
          values: options.instanceTypes ?? ['Standard_D2s_v3', 'Standard_D4s_v3'],
        },
        {
          key: 'karpenter.sh/capacity-type',
          operator: 'In',
          values: options.capacityTypes ?? ['on-demand'],
        },
        ...(options.zones
          ? [{ key: 'topology.kubernetes.io/zone', operator: 'In' as const, values: options.zones }]
          : []),
        ...(options.zonal
          ? [
              {
                key: 'karpenter.azure.com/placement-scope',
                operator: 'In' as const,
                values: ['zonal'],
              },
            ]
          : []),
      ],
      ...(options.taints ? { taints: options.taints } : {}),
      resources: { requests: options.requests ?? { cpu: '500m', memory: '1Gi' } },
    },
  };
}

/** A controllable clock. */
export class FakeClock {
  constructor(public ms = Date.now()) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface Harness {
  readonly arm: ArmEmulator;
  readonly clients: ArmClients;
  readonly provider: AzureCloudProvider;
  readonly nodeClasses: Map<string, AKSNodeClass>;
  readonly booted: BootedVirtualMachine[];
  readonly clock: FakeClock;
  readonly warnings: { message: string; fields?: Record<string, unknown> }[];
  stop(): Promise<void>;
}

/** Starts an emulator and a provider on it (random port, TLS, fast polling, no tie shuffling). */
export async function startHarness(
  overrides: Partial<AzureCloudProviderOptions> = {},
): Promise<Harness> {
  const booted: BootedVirtualMachine[] = [];
  const arm = await startArmEmulator({ onVmBooted: (b) => void booted.push(b) });
  // ARM refuses a NIC whose subnet does not exist.
  arm.putSubnet({ id: SUBNET });
  const clients = createArmClients({
    subscriptionId: SUBSCRIPTION,
    credential: staticCredential,
    endpoint: arm.url,
    ...(arm.ca ? { tlsCA: arm.ca } : {}),
    retry: { maxRetries: 3, retryDelayInMs: 5, maxRetryDelayInMs: 20 },
  });
  const nodeClasses = new Map<string, AKSNodeClass>([['default', readyNodeClass()]]);
  const clock = new FakeClock();
  const warnings: Harness['warnings'] = [];
  const provider = new AzureCloudProvider({
    clients,
    subscriptionId: SUBSCRIPTION,
    location: REGION,
    nodeResourceGroup: NODE_RG,
    clusterName: CLUSTER,
    clusterEndpoint: 'https://test-cluster-dns.hcp.southcentralus.azmk8s.io:443',
    kubeletBootstrapToken: BOOTSTRAP_TOKEN,
    sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE test',
    vnetSubnetID: SUBNET,
    nodeIdentities: [IDENTITY],
    kubeletIdentityClientID: '11111111-2222-3333-4444-555555555555',
    dnsServiceIP: '10.0.0.10',
    getNodeClass: async (name) => nodeClasses.get(name),
    // The 20 sizes with real ARM data (the emulator sells the whole shipped catalog).
    skus: allAzureSkus().filter((s) => s.capabilitySource === 'arm'),
    clock,
    random: () => 0,
    pollIntervalMs: 5,
    logger: {
      info: () => {},
      warn: (message, fields) => void warnings.push({ message, ...(fields ? { fields } : {}) }),
    },
    ...overrides,
  });
  return { arm, clients, provider, nodeClasses, booted, clock, warnings, stop: () => arm.stop() };
}

/** The body of the first VM PUT the emulator stored for a VM name (ARM JSON). */
export function storedVm(h: Harness, vmName: string) {
  return h.arm.state.virtualMachines().find((v) => v.name === vmName);
}
