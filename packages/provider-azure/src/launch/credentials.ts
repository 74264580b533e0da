/**
 * The Azure credential the provider authenticates to ARM with, chosen by an option (never
 * guessed from the environment behind the user's back), built with @azure/identity:
 *
 * - `workload-identity` (AKS workload identity; the default for self-hosted Karpenter): reads
 *   `AZURE_CLIENT_ID`, `AZURE_TENANT_ID`, `AZURE_FEDERATED_TOKEN_FILE` unless given;
 * - `managed-identity`: the VM/node's system- or user-assigned identity (`clientId` for a user-assigned one);
 * - `environment`: a service principal from `AZURE_CLIENT_ID` / `AZURE_TENANT_ID` / `AZURE_CLIENT_SECRET`
 *   (or certificate) variables.
 *
 * Tokens and secrets are never logged: the credential objects hold them, nothing here prints them.
 */
import type { TokenCredential } from '@azure/core-auth';
import {
  EnvironmentCredential,
  ManagedIdentityCredential,
  WorkloadIdentityCredential,
} from '@azure/identity';

/** How to authenticate. */
export type AzureCredentialOptions =
  | {
      readonly mode: 'workload-identity';
      readonly clientId?: string;
      readonly tenantId?: string;
      readonly tokenFilePath?: string;
    }
  | { readonly mode: 'managed-identity'; readonly clientId?: string }
  | { readonly mode: 'environment' };

/** The credential for the options. Throws Error naming the mode when its settings are missing. */
export function createAzureCredential(options: AzureCredentialOptions): TokenCredential {
  switch (options.mode) {
    case 'workload-identity': {
      const clientId = options.clientId ?? process.env['AZURE_CLIENT_ID'];
      const tenantId = options.tenantId ?? process.env['AZURE_TENANT_ID'];
      const tokenFilePath = options.tokenFilePath ?? process.env['AZURE_FEDERATED_TOKEN_FILE'];
      if (!clientId || !tenantId || !tokenFilePath)
        throw new Error(
          'credential mode workload-identity: needs AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_FEDERATED_TOKEN_FILE (set by the AKS workload identity webhook) or the matching options',
        );
      return new WorkloadIdentityCredential({ clientId, tenantId, tokenFilePath });
    }
    case 'managed-identity':
      return options.clientId
        ? new ManagedIdentityCredential({ clientId: options.clientId })
        : new ManagedIdentityCredential();
    case 'environment':
      return new EnvironmentCredential();
  }
}
