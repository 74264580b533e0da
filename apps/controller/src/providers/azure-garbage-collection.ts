/**
 * Azure garbage collection (reference azure-provider.md 5.6), upstream's instance GC controller:
 * once when the manager starts leading, then every 2 minutes, the NodeClaim names in the cluster
 * are handed to the provider's `collectGarbage`, which deletes cluster-tagged VMs without a
 * NodeClaim (older than 5 minutes by the VM's `timeCreated`, with their NIC and OS disk) and
 * NICs that belong to neither a VM nor a NodeClaim — the leftovers of a controller that died
 * mid-launch or of a delete that never finished. Then, as upstream, the Node object of each
 * collected VM goes too (the Node whose `spec.providerID` is the VM's, compared
 * case-insensitively, unless a live NodeClaim owns it), so no Node of a deleted VM lingers.
 */
import type { Node } from '@karpenter-ts/api';
import { isNotFound, type KubeClient } from '@karpenter-ts/controllers';
import {
  DefaultGarbageCollectionGracePeriodSeconds,
  type AzureGarbage,
} from '@karpenter-ts/provider-azure';
import type { PeriodicTask } from '../runtime/periodic-tasks.js';

/** Upstream's instance garbage-collection period, seconds. */
export const AZURE_GC_INTERVAL_SECONDS = 120;

/**
 * Upstream's grace period, seconds (300): a VM without a NodeClaim is collected only once it is
 * this old (the provider's default). The operator also gives it to the core garbage collection,
 * so that pass never deletes a younger orphan VM first.
 */
export const AZURE_GC_GRACE_SECONDS = DefaultGarbageCollectionGracePeriodSeconds;

/** Inputs of {@link azureGarbageCollectionTask}. */
export interface AzureGarbageCollectionInputs {
  /** The provider (AzureCloudProvider); only its collectGarbage is used. */
  readonly provider: {
    collectGarbage(nodeClaimNames: ReadonlySet<string>): Promise<AzureGarbage>;
  };
  readonly client: KubeClient;
  readonly logger: { info(fields: object, message: string): void };
  /** Period, seconds; default {@link AZURE_GC_INTERVAL_SECONDS}. */
  readonly intervalSeconds?: number;
}

/** What one garbage-collection pass deleted. */
export interface AzureGarbageCollected extends AzureGarbage {
  /** Names of the Nodes deleted because their VM was collected. */
  readonly nodes: readonly string[];
}

/**
 * The periodic task the manager runs. Each run lists the NodeClaims (from the synced cache), lets
 * the provider delete what has no NodeClaim, deletes the Nodes of the collected VMs, and logs
 * what it deleted; errors reject the run (the manager logs them and tries again next period).
 */
export function azureGarbageCollectionTask(inputs: AzureGarbageCollectionInputs): PeriodicTask {
  return {
    name: 'azure.garbagecollection',
    intervalSeconds: inputs.intervalSeconds ?? AZURE_GC_INTERVAL_SECONDS,
    run: async (): Promise<AzureGarbageCollected> => {
      const claims = await inputs.client.list('NodeClaim');
      const names = new Set(claims.map((c) => c.metadata.name ?? ''));
      const deleted = await inputs.provider.collectGarbage(names);
      const nodes = await deleteNodesOf(inputs.client, deleted.providerIDs);
      if (
        deleted.virtualMachines.length > 0 ||
        deleted.networkInterfaces.length > 0 ||
        nodes.length > 0
      )
        inputs.logger.info(
          {
            virtualMachines: deleted.virtualMachines,
            networkInterfaces: deleted.networkInterfaces,
            nodes,
          },
          'garbage collected Azure resources without a NodeClaim',
        );
      return { ...deleted, nodes };
    },
  };
}

/**
 * Deletes the Nodes whose `spec.providerID` is one of `providerIDs` (ARM IDs compare
 * case-insensitively: provider IDs lower-case the resource group, a kubelet may not) and that no
 * NodeClaim owns (by provider ID or `status.nodeName`; the NodeClaims are read after the VMs were
 * deleted, so one created meanwhile still protects its Node). A Node with finalizers is only
 * marked deleting; the termination controller finishes it. Returns the Node names.
 */
async function deleteNodesOf(
  client: KubeClient,
  providerIDs: readonly string[],
): Promise<string[]> {
  if (providerIDs.length === 0) return [];
  const collected = new Set(providerIDs.map((id) => id.toLowerCase()));
  const claims = await client.list('NodeClaim');
  const ownedIDs = new Set(claims.map((c) => (c.status?.providerID ?? '').toLowerCase()));
  const ownedNames = new Set(claims.map((c) => c.status?.nodeName ?? ''));
  const out: string[] = [];
  for (const node of await client.list('Node')) {
    const id = providerIDOf(node);
    const name = node.metadata?.name ?? '';
    if (id === '' || !collected.has(id) || ownedIDs.has(id) || ownedNames.has(name)) continue;
    if (node.metadata?.deletionTimestamp !== undefined) continue;
    try {
      await client.delete('Node', { name });
      out.push(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return out.sort();
}

function providerIDOf(node: Node): string {
  return (node.spec?.providerID ?? '').toLowerCase();
}
