/**
 * The ARM SDK clients the provider uses: @azure/arm-compute (VMs, disks) and @azure/arm-network
 * (NICs; subnets, which may sit in another subscription than the nodes), on one credential. Throttling is the SDK pipeline's job: its retry policy honours 429 +
 * Retry-After (and retries 5xx with exponential backoff) up to `maxRetries` times.
 */
import { ComputeManagementClient } from '@azure/arm-compute';
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
  const network = networkClient(options.subscriptionId);
  const others = new Map<string, NetworkManagementClient>();
  return {
    compute: new ComputeManagementClient(options.credential, options.subscriptionId, {
      ...common,
      credentials: { scopes: [scope] },
    }),
    network,
    subnets(subscriptionId) {
      const key = subscriptionId.toLowerCase();
      if (key === options.subscriptionId.toLowerCase()) return network.subnets;
      let client = others.get(key);
      if (!client) others.set(key, (client = networkClient(subscriptionId)));
      return client.subnets;
    },
  };
}
