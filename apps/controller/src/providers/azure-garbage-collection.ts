/**
 * Azure garbage collection (reference azure-provider.md 5.6): every 2 minutes, as upstream's
 * instance GC controller, the node claim names in the cluster are handed to the provider's
 * `collectGarbage`, which deletes cluster-tagged VMs without a node claim (past their grace
 * period, with their NIC and disk) and NICs that belong to neither a VM nor a node claim — the
 * leftovers of a controller that died mid-launch or of a delete that never finished.
 */
import type { KubeClient } from '@karpenter-ts/controllers';
import type { AzureGarbage } from '@karpenter-ts/provider-azure';
import type { PeriodicTask } from '../runtime/manager.js';

/** Upstream's instance garbage-collection period, seconds. */
export const AZURE_GC_INTERVAL_SECONDS = 120;

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

/**
 * The periodic task the manager runs. Each run lists the NodeClaims (from the synced cache), lets
 * the provider delete what has no NodeClaim, and logs what it deleted; errors reject the run (the
 * manager logs them and tries again next period).
 */
export function azureGarbageCollectionTask(inputs: AzureGarbageCollectionInputs): PeriodicTask {
  return {
    name: 'azure.garbagecollection',
    intervalSeconds: inputs.intervalSeconds ?? AZURE_GC_INTERVAL_SECONDS,
    run: async () => {
      const claims = await inputs.client.list('NodeClaim');
      const names = new Set(claims.map((c) => c.metadata.name ?? ''));
      const deleted = await inputs.provider.collectGarbage(names);
      if (deleted.virtualMachines.length > 0 || deleted.networkInterfaces.length > 0)
        inputs.logger.info(
          {
            virtualMachines: deleted.virtualMachines,
            networkInterfaces: deleted.networkInterfaces,
          },
          'garbage collected Azure resources without a NodeClaim',
        );
      return deleted;
    },
  };
}
