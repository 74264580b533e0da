/**
 * The ARM SDK clients the provider uses: @azure/arm-compute (VMs, disks; disk encryption sets,
 * which may sit in another subscription than the nodes) and @azure/arm-network (NICs; subnets,
 * likewise), on one credential. Throttling is the SDK pipeline's job: its retry policy honours
 * 429 + Retry-After (and retries 5xx with exponential backoff) up to `maxRetries` times.
 */
import { ComputeManagementClient, type DiskEncryptionSetsOperations } from '@azure/arm-compute';
import { NetworkManagementClient, type Subnets } from '@azure/arm-network';
import type { TokenCredential } from '@azure/core-auth';

/** Public cloud ARM endpoint. */
export const ARM_PUBLIC_ENDPOINT = 'https://management.azure.com';

/** Options of {@link createArmClients}. */
export interface ArmClientOptions {
  readonly subscriptionId: string;
  readonly credential: TokenCredential;
  /** ARM endpoint; default the public cloud. Tests point it at the ARM emulator. */
  readonly endpoint?: string;
  /** Extra trusted CA certificates (PEM), replacing the default set (e.g. the emulator's). */
  readonly tlsCA?: string;
  /** SDK retries for throttling (429) and transient errors; default 3 retries, 800 ms base, 60 s max delay. */
  readonly retry?: { maxRetries?: number; retryDelayInMs?: number; maxRetryDelayInMs?: number };
  /** User-agent prefix, e.g. `karpenter-ts/0.1.0`. */
  readonly userAgentPrefix?: string;
}

/** The SDK clients. */
export interface ArmClients {
  readonly compute: ComputeManagementClient;
  /** Network client of the nodes' subscription. */
  readonly network: NetworkManagementClient;
  /**
   * The subnets operations of a subscription (GUID, case-insensitive): `network.subnets` for the
   * nodes' subscription, else a network client of that subscription on the same credential,
   * endpoint and options (made once, then reused). A bring-your-own VNet may live in another
   * subscription than the cluster's nodes, and the SDK binds the subscription per client.
   */
  subnets(subscriptionId: string): Subnets;
  /**
   * The disk encryption sets operations of a subscription (GUID, case-insensitive):
   * `compute.diskEncryptionSets` for the nodes' subscription, else a compute client of that
   * subscription made once and reused, as {@link ArmClients.subnets}. A disk encryption set
   * (`NODE_OSDISK_DISKENCRYPTIONSET_ID`) often lives in a separate security subscription.
   */
  diskEncryptionSets(subscriptionId: string): DiskEncryptionSetsOperations;
}

/** Builds the clients; token scope is always ARM's (`https://management.azure.com/.default`). */
export function createArmClients(options: ArmClientOptions): ArmClients {
  const endpoint = options.endpoint ?? ARM_PUBLIC_ENDPOINT;
  const scope = `${ARM_PUBLIC_ENDPOINT}/.default`;
  const common = {
    endpoint,
    retryOptions: {
      maxRetries: options.retry?.maxRetries ?? 3,
      retryDelayInMs: options.retry?.retryDelayInMs ?? 800,
      maxRetryDelayInMs: options.retry?.maxRetryDelayInMs ?? 60_000,
    },
    ...(options.tlsCA ? { tlsOptions: { ca: options.tlsCA } } : {}),
    userAgentOptions: { userAgentPrefix: options.userAgentPrefix ?? 'karpenter-ts' },
  };
  const networkClient = (subscriptionId: string) =>
    new NetworkManagementClient(options.credential, subscriptionId, {
      ...common,
      $host: endpoint,
      credentialScopes: [scope],
    });
  const computeClient = (subscriptionId: string) =>
    new ComputeManagementClient(options.credential, subscriptionId, {
      ...common,
      credentials: { scopes: [scope] },
    });
  const network = networkClient(options.subscriptionId);
  const compute = computeClient(options.subscriptionId);
  const otherNetworks = new Map<string, NetworkManagementClient>();
  const otherComputes = new Map<string, ComputeManagementClient>();
  /** The client of `subscriptionId`: `own` for the nodes' subscription, else one made once. */
  const of = <C>(
    subscriptionId: string,
    own: C,
    others: Map<string, C>,
    make: (subscriptionId: string) => C,
  ): C => {
    const key = subscriptionId.toLowerCase();
    if (key === options.subscriptionId.toLowerCase()) return own;
    let client = others.get(key);
    if (!client) others.set(key, (client = make(subscriptionId)));
    return client;
  };
  return {
    compute,
    network,
    subnets: (subscriptionId) => of(subscriptionId, network, otherNetworks, networkClient).subnets,
    diskEncryptionSets: (subscriptionId) =>
      of(subscriptionId, compute, otherComputes, computeClient).diskEncryptionSets,
  };
}
