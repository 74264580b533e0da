/**
 * Azure garbage collection, after upstream `Azure/karpenter-provider-azure`'s
 * `pkg/controllers/nodeclaim/garbagecollection` (at its August 2026 main): its instance and NIC
 * GC controllers as two periodic tasks, each run once when the manager starts leading and then on
 * upstream's period:
 * - every 2 minutes, VMs: the NodeClaim names in the cluster are handed to the provider's
 *   `collectGarbage`, which deletes cluster-tagged VMs without a NodeClaim (older than 5 minutes
 *   by the VM's `timeCreated`, with their NIC and OS disk) — the leftovers of a controller that
 *   died mid-launch or of a delete that never finished. Then, as upstream, the Node object of
 *   each collected VM goes too (the Node whose `spec.providerID` is the VM's, compared
 *   case-insensitively, unless a live NodeClaim owns it), so no Node of a deleted VM lingers;
 * - every 5 minutes, NICs that belong to neither a VM nor a NodeClaim (upstream's slower NIC
 *   period: ARM keeps a NIC reserved for about 3 minutes after its VM is deleted).
 * Under `--provider azure` these tasks alone collect orphan VMs: the operator's wiring turns the
 * core garbage collection's orphan-instance pass off, as upstream's core GC only deletes
 * NodeClaims.
 */
import type { Node } from '@karpenter-ts/api';
import { isNotFound, type KubeClient, type PeriodicTask } from '@karpenter-ts/controllers';
import type {
  AzureGarbage,
  AzureGarbageKinds,
} from '../../../cloudprovider/azure-cloud-provider.js';

/** Upstream's instance (VM) garbage-collection period, seconds. */
export const AZURE_VM_GC_INTERVAL_SECONDS = 120;

/** Upstream's NIC garbage-collection period, seconds. */
export const AZURE_NIC_GC_INTERVAL_SECONDS = 300;

/** Log message of a VM pass that deleted something. */
export const AZURE_VM_GC_MESSAGE = 'garbage collected Azure VMs without a NodeClaim';

/** Log message of a NIC pass that deleted something. */
export const AZURE_NIC_GC_MESSAGE = 'garbage collected Azure NICs without a VM or NodeClaim';

/** Inputs of {@link azureGarbageCollectionTasks}. */
export interface AzureGarbageCollectionInputs {
  /** The provider (AzureCloudProvider); only its collectGarbage is used. */
  readonly provider: {
    collectGarbage(
      nodeClaimNames: ReadonlySet<string>,
      kinds: AzureGarbageKinds,
    ): Promise<AzureGarbage>;
  };
  readonly client: KubeClient;
  readonly logger: { info(fields: object, message: string): void };
}

/** What one garbage-collection pass deleted (the other kind's list is empty). */
export interface AzureGarbageCollected extends AzureGarbage {
  /** Names of the Nodes deleted because their VM was collected. */
  readonly nodes: readonly string[];
}

/**
 * The two periodic tasks the manager runs: `azure.instance.garbagecollection` (VMs and their
 * Nodes, every {@link AZURE_VM_GC_INTERVAL_SECONDS}) and `azure.networkinterface.garbagecollection`
 * (NICs, every {@link AZURE_NIC_GC_INTERVAL_SECONDS}). Each run lists the NodeClaims (from the
 * synced cache), lets the provider delete what of its kind has no NodeClaim, and logs what it
 * deleted; errors reject the run (the manager logs them and tries again next period).
 */
export function azureGarbageCollectionTasks(
  inputs: AzureGarbageCollectionInputs,
): readonly PeriodicTask[] {
  const nodeClaimNames = async () =>
    new Set((await inputs.client.list('NodeClaim')).map((c) => c.metadata.name ?? ''));
  return [
    {
      name: 'azure.instance.garbagecollection',
      intervalSeconds: AZURE_VM_GC_INTERVAL_SECONDS,
      run: async (): Promise<AzureGarbageCollected> => {
        const deleted = await inputs.provider.collectGarbage(await nodeClaimNames(), {
          networkInterfaces: false,
        });
        const nodes = await deleteNodesOf(inputs.client, deleted.providerIDs);
        if (deleted.virtualMachines.length > 0 || nodes.length > 0)
          inputs.logger.info(
            { virtualMachines: deleted.virtualMachines, nodes },
            AZURE_VM_GC_MESSAGE,
          );
        return { ...deleted, nodes };
      },
    },
    {
      name: 'azure.networkinterface.garbagecollection',
      intervalSeconds: AZURE_NIC_GC_INTERVAL_SECONDS,
      run: async (): Promise<AzureGarbageCollected> => {
        const deleted = await inputs.provider.collectGarbage(await nodeClaimNames(), {
          virtualMachines: false,
        });
        if (deleted.networkInterfaces.length > 0)
          inputs.logger.info(
            { networkInterfaces: deleted.networkInterfaces },
            AZURE_NIC_GC_MESSAGE,
          );
        return { ...deleted, nodes: [] };
      },
    },
  ];
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
