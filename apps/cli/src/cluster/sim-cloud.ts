/**
 * The cloud the in-memory cluster runs against: @karpenter-ts/cloudprovider's SimCloudProvider
 * over the chosen cloud's real catalog and prices (the same instance types, allocatable and
 * prices `catalog` and `simulate` show), each NodePool getting the whole catalog of its NodeClass
 * as a provider's GetInstanceTypes does: the scheduler narrows it by the pool's requirements,
 * and consolidation must still find the instance type of a node the pool's requirements no
 * longer allow (a drifted node's price). The sim launches on the cheapest available compatible
 * offering, which is the launch model of the `sim` cloud; the Azure and AWS launch rankings are
 * applied where the CLI reports a launch (see `Cloud.chooseLaunch`).
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { SimCloudProvider, type InstanceType } from '@karpenter-ts/cloudprovider';
import {
  SnapshotMachineStore,
  snapshotMachines,
  type ClusterSnapshot,
  type InstanceTypeStore,
  type ManualClock,
} from '@karpenter-ts/controllers';
import { allowUndefinedLabels, type Cloud } from '../clouds/cloud.js';
import type { PlannedNodePool } from '../simulation/node-pools.js';

/** The sim cloud and the catalog lookups the reports need. */
export interface ClusterCloud {
  readonly provider: SimCloudProvider;
  /** The instance types a NodePool (by name) may launch; `[]` for an unknown pool. */
  instanceTypes(poolName: string): readonly InstanceType[];
  /** USD/hour of a NodeClaim's (or Node's) offering by its labels; undefined when not in the catalog. */
  price(labels: Readonly<Record<string, string>>): number | undefined;
}

/**
 * Builds the cloud for `pools` (see the module comment), running one machine per launched
 * NodeClaim of `snapshot` (adopted: garbage collection keeps them, termination deletes them).
 */
export function clusterCloud(
  cloud: Cloud,
  pools: readonly PlannedNodePool[],
  clock: ManualClock,
  snapshot?: ClusterSnapshot,
): ClusterCloud {
  const byPool = new Map(pools.map((p) => [p.nodePool.metadata.name ?? '', p]));
  const cache = new Map<string, readonly InstanceType[]>();
  const instanceTypes = (poolName: string): readonly InstanceType[] => {
    const planned = byPool.get(poolName);
    if (planned === undefined) return [];
    let types = cache.get(poolName);
    if (types === undefined) {
      types = cloud.instanceTypes(planned.defaultNodeClass ? undefined : planned.nodeClass);
      cache.set(poolName, types);
    }
    return types;
  };
  const price = priceIn(instanceTypes);
  const claimPrice = (nodeClaim: NodeClaim) => price(nodeClaim.metadata.labels ?? {}) ?? 0;
  const provider = new SimCloudProvider({
    clock,
    nodeClasses: [cloud.nodeClassKind],
    allowUndefinedLabels: allowUndefinedLabels(cloud),
    instanceTypes,
    ...(snapshot
      ? { store: new SnapshotMachineStore(snapshotMachines(snapshot, claimPrice, clock.now())) }
      : {}),
  });
  return { provider, instanceTypes, price };
}

/** USD/hour of the offering `labels` name among a pool's instance types (see ClusterCloud.price). */
function priceIn(
  instanceTypes: (poolName: string) => readonly InstanceType[],
): (labels: Readonly<Record<string, string>>) => number | undefined {
  return (labels) => {
    const it = instanceTypes(labels[Labels.NodePool] ?? '').find(
      (t) => t.name === labels[Labels.InstanceType],
    );
    return it?.offerings.find(
      (o) =>
        o.zone === labels[Labels.TopologyZone] && o.capacityType === labels[Labels.CapacityType],
    )?.price;
  };
}

/**
 * The catalog as the controllers see it with the `NodeOverlay` gate on: each pool's instance
 * types and prices with the current overlay evaluation applied (a pool it has not covered shows
 * the provider's own), so reports price and size launches as the controllers decided them.
 */
export function overlaidClusterCloud(base: ClusterCloud, store: InstanceTypeStore): ClusterCloud {
  const instanceTypes = (poolName: string): readonly InstanceType[] => {
    const types = base.instanceTypes(poolName);
    return store.current.evaluatedNodePools.has(poolName) ? store.applyAll(poolName, types) : types;
  };
  return { provider: base.provider, instanceTypes, price: priceIn(instanceTypes) };
}
