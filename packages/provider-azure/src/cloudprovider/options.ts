/**
 * Options of {@link AzureCloudProvider} (the operator settings of upstream
 * `Azure/karpenter-provider-azure` that the VM launch path uses, plus the seams: ARM clients,
 * NodeClass and Node lookups, clock).
 */
import type { Node } from '@karpenter-ts/api';
import type { Clock } from '@karpenter-ts/cloudprovider';
import type { AzurePricing } from '../catalog/pricing.js';
import type { AzureSku } from '../catalog/sku.js';
import type { NetworkPlugin, NetworkPluginMode } from '../instancetype/max-pods.js';
import type { AKSNodeClass } from '../nodeclass/types.js';
import type { ArmClients } from '../launch/arm-clients.js';

/** Where the provider reports what it did (never given secrets). */
export interface AzureProviderLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Options of the Azure cloud provider. */
export interface AzureCloudProviderOptions {
  /** ARM clients (see `createArmClients`). */
  readonly clients: ArmClients;
  readonly subscriptionId: string;
  /** ARM region of the cluster, e.g. `eastus`. */
  readonly location: string;
  /** `AZURE_NODE_RESOURCE_GROUP`: where VMs, NICs and disks are created (`MC_...`). */
  readonly nodeResourceGroup: string;
  /** `CLUSTER_NAME`: tagged on every resource; `list` and GC select on it. */
  readonly clusterName: string;
  /** `CLUSTER_ENDPOINT`: the API server URL the nodes join. */
  readonly clusterEndpoint: string;
  /** `KUBELET_BOOTSTRAP_TOKEN` (secret; only written into VM custom data). */
  readonly kubeletBootstrapToken: string;
  /** `SSH_PUBLIC_KEY` for the admin user. */
  readonly sshPublicKey: string;
  /** `VNET_SUBNET_ID`: the default node subnet. */
  readonly vnetSubnetID: string;
  /** `LINUX_ADMIN_USERNAME`, default `azureuser`. */
  readonly adminUsername?: string;
  /** `NODE_IDENTITIES`: user-assigned identity ARM IDs put on every VM. */
  readonly nodeIdentities?: readonly string[];
  /** `KUBELET_IDENTITY_CLIENT_ID` (drift check and node label). */
  readonly kubeletIdentityClientID?: string;
  /** `ADDITIONAL_TAGS`. */
  readonly additionalTags?: Readonly<Record<string, string>>;
  /** `NODE_OSDISK_DISKENCRYPTIONSET_ID`. */
  readonly diskEncryptionSetID?: string;
  /**
   * `DNS_SERVICE_IP`: the cluster DNS ClusterIP, passed to the kubelet as `--cluster-dns`. The
   * node IP family is derived from it (see `nodeIPFamily`); it must be IPv4, since IPv6 and
   * dual-stack clusters are not supported (the constructor raises Error otherwise).
   */
  readonly dnsServiceIP?: string;
  readonly networkPlugin?: NetworkPlugin;
  readonly networkPluginMode?: NetworkPluginMode;
  /** `VM_MEMORY_OVERHEAD_PERCENT` as a fraction (default 0.075). */
  readonly vmMemoryOverheadPercent?: number;
  /** Looks up an AKSNodeClass by name (undefined when absent). */
  getNodeClass(name: string): Promise<AKSNodeClass | undefined>;
  /** Looks up a Node by name (drift: kubelet version, labels). Without it those checks are skipped. */
  getNode?(name: string): Promise<Node | undefined>;
  /** VM sizes; default the shipped catalog. */
  readonly skus?: readonly AzureSku[];
  /** Prices; default the shipped static table (see `refreshRetailPricing` for live prices). */
  readonly pricing?: AzurePricing;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Uniform [0,1) source for shuffling equal offerings; default Math.random. */
  readonly random?: () => number;
  /** Interval between polls of ARM long-running operations, ms; default 3000 (upstream's). */
  readonly pollIntervalMs?: number;
  /**
   * Offerings tried per `create` before giving up with InsufficientCapacityError; default 3.
   * Upstream tries one and lets the next NodeClaim pick another; 1 reproduces that.
   */
  readonly maxLaunchAttempts?: number;
  /**
   * How long a launch waits for its NIC create (and a failed launch for a NIC delete), ms;
   * default 120000. Past it the launch fails with CreateError `LaunchTimeout` after cleaning up,
   * and the node claim lifecycle retries it.
   */
  readonly networkInterfaceCreateTimeoutMs?: number;
  /**
   * How long a launch waits for its VM create (and a failed launch for a VM delete), ms; default
   * 600000. Past it as for {@link networkInterfaceCreateTimeoutMs}.
   */
  readonly virtualMachineCreateTimeoutMs?: number;
  /** Seconds a VM without a NodeClaim must exist before GC deletes it; default 300. */
  readonly garbageCollectionGracePeriodSeconds?: number;
  readonly logger?: AzureProviderLogger;
}
