/**
 * Builds the simulated cluster for one cloud run: a manual clock at the scenario's time 0, the
 * in-memory API server, the NodePools and NodeClasses the CLI's plan picks for the cloud (the
 * cloud's default ones when the manifests have none), DaemonSets and PDBs, and a
 * {@link SimCloudProvider} over the cloud's real catalog and prices (the CLI's adapter, so the
 * same instance types, allocatable and prices as `karpenter-ts simulate`). The sim launches on
 * the cheapest available offering the NodeClaim allows (ties: instance type, zone, then
 * capacity type), not through the provider's own launch ranking. Each NodePool is given only
 * the catalog's types its requirements can meet (see {@link PoolInstanceTypes}).
 */
import type { NodeOverlay, NodePool } from '@karpenter-ts/api';
import { SimCloudProvider } from '@karpenter-ts/cloudprovider';
import {
  allowUndefinedLabels,
  createCloud,
  inventory,
  planNodePools,
  type KubeObject,
} from '@karpenter-ts/cli';
import { ManualClock } from '@karpenter-ts/controllers';
import type { CloudRun, Scenario } from '../scenario/types.js';
import { startingObjects, type StartingObjects } from '../workloads/starting-objects.js';
import type { SimulatedCluster } from './autoscaler.js';
import { nodeStartupFor } from './node-startup.js';
import { ObservedKubeClient } from './observed-client.js';
import { PoolInstanceTypes } from './pool-instance-types.js';

/** A cluster ready to run, and what it was built from. */
export interface ClusterSetup {
  readonly cluster: SimulatedCluster;
  readonly objects: StartingObjects;
  /** The NodeClasses in use, by name (scenario changes update them here and in the client). */
  readonly nodeClasses: Map<string, KubeObject>;
  readonly notes: readonly string[];
}

/** See the module comment. Raises the CLI's CliError for a region the catalog lacks. */
export async function setUpCluster(scenario: Scenario, run: CloudRun): Promise<ClusterSetup> {
  const adapter = createCloud(run.cloud, run.region);
  const clock = new ManualClock(scenario.startMs);
  const client = new ObservedKubeClient({ clock });
  const documents = [...scenario.documents, ...run.documents];
  const inv = inventory(documents);
  const plan = planNodePools(inv.nodePools, inv.nodeClasses, adapter);
  const nodeClasses = new Map<string, KubeObject>();
  for (const p of plan.pools) nodeClasses.set(p.nodeClass.metadata?.name ?? 'default', p.nodeClass);
  const notes = [...plan.notes];
  if (adapter.spotPricing !== undefined) notes.push(`spot prices: ${adapter.spotPricing}`);
  const poolNodeClass = new Map<string, string>();
  const poolTypes = new PoolInstanceTypes();
  const cloud = new SimCloudProvider({
    clock,
    nodeClasses: [adapter.nodeClassKind],
    allowUndefinedLabels: allowUndefinedLabels(adapter),
    instanceTypes: async (poolName) => {
      const nodeClass = nodeClasses.get(poolNodeClass.get(poolName) ?? '');
      if (nodeClass === undefined) return [];
      const pool = await client.get('NodePool', { name: poolName });
      return poolTypes.get(adapter.instanceTypes(nodeClass), pool);
    },
  });
  const now = new Date(clock.now());
  for (const [name, nodeClass] of nodeClasses) {
    await client.create('NodeClass', {
      apiVersion: nodeClass.apiVersion,
      kind: nodeClass.kind,
      metadata: { name },
      spec: (nodeClass.spec ?? {}) as Record<string, unknown>,
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Ready',
            message: '',
            lastTransitionTime: now.toISOString(),
          },
        ],
      },
    });
  }
  for (const p of plan.pools) {
    const pool = structuredClone(p.nodePool) as NodePool;
    delete pool.status;
    poolNodeClass.set(pool.metadata.name ?? '', pool.spec.template.spec.nodeClassRef.name);
    await client.create('NodePool', pool);
  }
  // NodeOverlays are the cluster's whatever the gate: with it off the controllers do not read them.
  for (const doc of inv.nodeOverlays)
    await client.create('NodeOverlay', structuredClone(doc.object) as unknown as NodeOverlay);
  if (inv.nodeOverlays.length > 0 && !scenario.karpenter.nodeOverlay)
    notes.push(
      `${inv.nodeOverlays.length} NodeOverlay(s) not applied: the NodeOverlay feature gate is off (its default, as upstream's): karpenter.nodeOverlay: true applies them`,
    );
  const objects = startingObjects(documents, now);
  for (const lr of objects.limitRanges) await client.create('LimitRange', lr);
  for (const ds of objects.daemonSets) await client.create('DaemonSet', ds);
  for (const pdb of objects.podDisruptionBudgets) await client.create('PodDisruptionBudget', pdb);
  const nodeStartup = nodeStartupFor(run.cloud, scenario.nodeStartup[run.cloud]);
  return {
    cluster: { clock, client, cloud, adapter, nodeStartup },
    objects,
    nodeClasses,
    notes,
  };
}
