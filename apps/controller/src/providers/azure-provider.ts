/**
 * `--provider azure`, wiring only: the {@link AzureCloudProvider} of `@karpenter-ts/provider-azure`
 * built from the operator options and the environment ({@link readAzureSettings}), talking to ARM
 * through the Azure SDKs, and the provider package's own controllers (the AKSNodeClass status
 * controller, the VM and NIC garbage collection) handed to the manager with the Azure well-known
 * labels. What those controllers decide lives in packages/provider-azure/src/controllers/.
 */
import {
  AKSNodeClassGroup,
  AKSNodeClassKind,
  AzureCloudProvider,
  AzureWellKnownLabels,
  CatalogRefresher,
  aksNodeClassStatusController,
  azureGarbageCollectionTasks,
  RETAIL_PRICES_ENDPOINT,
  createArmClients,
  fetchRetailPrices,
  listRegionAzureSkus,
  createAzureCredential,
  type AKSNodeClass,
  type ArmClientOptions,
  type AzureProviderLogger,
  type AzureSku,
} from '@karpenter-ts/provider-azure';
import type { Clock, KubeClient, ReconcileResult } from '@karpenter-ts/controllers';
import type { Logger } from '../observability/logger.js';
import { podNamespace } from '../kube/cluster.js';
import type { ManagerOptions, PeriodicTask } from '../runtime/manager.js';
import type { RawRequest } from '../sim/kwok-cluster-api.js';
import { describeAzureSettings, type AzureSettings } from './azure-settings.js';

/** What the operator needs to run the Azure provider. */
export interface AzureWiring {
  readonly cloudProvider: AzureCloudProvider;
  readonly extraWellKnownLabels: readonly string[];
  readonly nodeClassReconciler: (name: string) => Promise<ReconcileResult>;
  /** Garbage collection of VMs (every 2 min) and NICs (every 5 min) without a NodeClaim. */
  readonly periodic: readonly PeriodicTask[];
  /**
   * The core garbage collection's options: `collectOrphanInstances: false`, as the VM garbage
   * collection of `periodic` alone collects VMs without a NodeClaim (after upstream's 5 minutes,
   * with their Nodes); the core pass keeps deleting NodeClaims whose VM is gone.
   */
  readonly garbageCollection: NonNullable<ManagerOptions['garbageCollection']>;
  /**
   * VM sizes from ARM's Resource SKUs API of the region at start and every 12 h (every cloud),
   * and live retail prices on the same schedule when there is a prices endpoint (the public
   * cloud, as upstream). The operator starts and stops it.
   */
  readonly catalogRefresher: CatalogRefresher;
}

/** Inputs of {@link wireAzureProvider}. */
export interface AzureWiringInputs {
  readonly settings: AzureSettings;
  /** `--cluster-name` (`CLUSTER_NAME`), required for azure by the options. */
  readonly clusterName: string;
  readonly client: KubeClient;
  readonly request: RawRequest;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly userAgent: string;
  /** A credential to use instead of the one `settings.credential` selects (tests). */
  readonly credential?: ArmClientOptions['credential'];
  /** VM sizes to offer until the first SKU refresh instead of the shipped catalog (tests). */
  readonly skus?: readonly AzureSku[];
  /** ARM long-running operation poll interval, ms (default the provider's 3 s). */
  readonly pollIntervalMs?: number;
  /**
   * Retail Prices API base URL. Default: the public endpoint when `ARM_ENDPOINT` is unset (public
   * cloud), none otherwise (upstream refreshes prices in the public cloud only); tests pass the
   * emulator's URL (its CA is `ARM_CA`).
   */
  readonly retailPricesEndpoint?: string;
}

/**
 * Builds the provider. Raises Error when the credential mode's settings are missing. Logs the
 * settings without secrets.
 */
export function wireAzureProvider(inputs: AzureWiringInputs): AzureWiring {
  const { settings: s, client, logger } = inputs;
  logger.info(describeAzureSettings(s), 'azure provider settings');
  const credential = inputs.credential ?? createAzureCredential(s.credential);
  const providerLogger: AzureProviderLogger = {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
  };
  const clients = createArmClients({
    subscriptionId: s.subscriptionId,
    credential,
    ...(s.armEndpoint !== undefined ? { endpoint: s.armEndpoint } : {}),
    ...(s.armCA !== undefined ? { tlsCA: s.armCA } : {}),
    userAgentPrefix: inputs.userAgent,
  });
  const nodeClassKind = { group: AKSNodeClassGroup, kind: AKSNodeClassKind };
  const cloudProvider = new AzureCloudProvider({
    clients,
    subscriptionId: s.subscriptionId,
    location: s.location,
    nodeResourceGroup: s.nodeResourceGroup,
    clusterName: inputs.clusterName,
    clusterEndpoint: s.clusterEndpoint,
    kubeletBootstrapToken: s.kubeletBootstrapToken,
    sshPublicKey: s.sshPublicKey,
    vnetSubnetID: s.vnetSubnetID,
    nodeIdentities: s.nodeIdentities,
    ...(s.kubeletIdentityClientID !== undefined
      ? { kubeletIdentityClientID: s.kubeletIdentityClientID }
      : {}),
    ...(s.dnsServiceIP !== undefined ? { dnsServiceIP: s.dnsServiceIP } : {}),
    ...(s.diskEncryptionSetID !== undefined ? { diskEncryptionSetID: s.diskEncryptionSetID } : {}),
    ...(s.adminUsername !== undefined ? { adminUsername: s.adminUsername } : {}),
    ...(s.networkPlugin !== undefined ? { networkPlugin: s.networkPlugin } : {}),
    ...(s.networkPluginMode !== undefined ? { networkPluginMode: s.networkPluginMode } : {}),
    ...(s.vmMemoryOverheadPercent !== undefined
      ? { vmMemoryOverheadPercent: s.vmMemoryOverheadPercent }
      : {}),
    ...(inputs.skus !== undefined ? { skus: inputs.skus } : {}),
    ...(inputs.pollIntervalMs !== undefined ? { pollIntervalMs: inputs.pollIntervalMs } : {}),
    getNodeClass: async (name) =>
      (await client.get('NodeClass', { name, nodeClass: nodeClassKind })) as
        AKSNodeClass | undefined,
    getNode: (name) => client.get('Node', { name }),
    clock: inputs.clock,
    logger: providerLogger,
  });
  const pricesEndpoint =
    inputs.retailPricesEndpoint ??
    (s.armEndpoint === undefined ? RETAIL_PRICES_ENDPOINT : undefined);
  const catalogRefresher = new CatalogRefresher({
    catalog: cloudProvider,
    region: s.location,
    fetchSkus: (region) => listRegionAzureSkus(clients.compute, region),
    ...(pricesEndpoint === undefined
      ? {}
      : {
          fetchPrices: (region: string) =>
            fetchRetailPrices({
              region,
              endpoint: pricesEndpoint,
              ...(s.armCA !== undefined ? { tlsCA: s.armCA } : {}),
            }),
        }),
    logger: providerLogger,
  });
  return {
    cloudProvider,
    catalogRefresher,
    periodic: azureGarbageCollectionTasks({ provider: cloudProvider, client, logger }),
    garbageCollection: { collectOrphanInstances: false },
    extraWellKnownLabels: [...AzureWellKnownLabels],
    nodeClassReconciler: aksNodeClassStatusController({
      client,
      clock: inputs.clock,
      request: inputs.request,
      compute: clients.compute,
      subnets: (subscriptionId) => clients.subnets(subscriptionId),
      clusterSubnetID: s.vnetSubnetID,
      nodeResourceGroup: s.nodeResourceGroup,
      diskEncryptionSets: (subscriptionId) => clients.diskEncryptionSets(subscriptionId),
      diskEncryptionSetID: s.diskEncryptionSetID,
      location: s.location,
      pinnedVersion: s.nodeImageVersion,
      systemNamespace: s.systemNamespace ?? podNamespace(),
    }),
  };
}
