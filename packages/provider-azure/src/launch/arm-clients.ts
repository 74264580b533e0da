/**
 * The ARM SDK clients the provider uses: @azure/arm-compute (VMs, disks) and @azure/arm-network
 * (NICs), on one credential. Throttling is the SDK pipeline's job: its retry policy honours 429 +
 * Retry-After (and retries 5xx with exponential backoff) up to `maxRetries` times.
 */
import { ComputeManagementClient } from '@azure/arm-compute';
import { NetworkManagementClient } from '@azure/arm-network';
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

/** The two SDK clients. */
export interface ArmClients {
  readonly compute: ComputeManagementClient;
  readonly network: NetworkManagementClient;
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
  return {
    compute: new ComputeManagementClient(options.credential, options.subscriptionId, {
      ...common,
      credentials: { scopes: [scope] },
    }),
    network: new NetworkManagementClient(options.credential, options.subscriptionId, {
      ...common,
      $host: endpoint,
      credentialScopes: [scope],
    }),
  };
}
