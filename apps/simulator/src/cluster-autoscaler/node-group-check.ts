/**
 * The check of `clusterAutoscaler.nodeGroups` against each cloud's catalog, before anything
 * runs: a group naming an instance type the cloud lacks, or one its NodePool's requirements do
 * not allow, is a problem on its line, not an error when the baseline starts. The NodePools,
 * their NodeClasses and their share of the catalog come from the same plan the run uses
 * (the CLI's `planNodePools`, {@link PoolInstanceTypes}).
 */
import type { NodePool } from '@karpenter-ts/api';
import { createCloud, inventory, planNodePools, type ManifestDocument } from '@karpenter-ts/cli';
import { PoolInstanceTypes } from '../engine/pool-instance-types.js';
import { nodeGroups, NodeGroupSpecError, type NodeGroupSpec } from './node-groups.js';

/** One cloud of the scenario, as the check needs it. */
export interface NodeGroupCloud {
  readonly cloud: 'azure' | 'aws' | 'sim';
  readonly region?: string;
  /** The scenario's manifests and this cloud's own. */
  readonly documents: readonly ManifestDocument[];
}

/** What is wrong with a node group on one cloud: the scenario field and the reason. */
export interface NodeGroupProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * The problems of `specs` on each cloud of `clouds` (at most one per cloud: the first spec it
 * cannot serve), each message led by the cloud (`aws us-east-1: NodePool general does not allow
 * on-demand Standard_D2s_v5 on this cloud`). Raises the CLI's CliError for a region the catalog
 * lacks (the loader has refused those already).
 */
export function nodeGroupProblems(
  specs: readonly NodeGroupSpec[],
  clouds: readonly NodeGroupCloud[],
): NodeGroupProblem[] {
  const problems: NodeGroupProblem[] = [];
  for (const c of clouds) {
    const adapter = createCloud(c.cloud, c.region);
    const inv = inventory(c.documents);
    const plan = planNodePools(inv.nodePools, inv.nodeClasses, adapter);
    const poolTypes = new PoolInstanceTypes();
    const nodeClassOf = new Map(
      plan.pools.map((p) => [p.nodePool.metadata.name ?? '', p.nodeClass] as const),
    );
    try {
      nodeGroups(
        plan.pools.map((p) => p.nodePool as NodePool),
        (pool) =>
          poolTypes.get(adapter.instanceTypes(nodeClassOf.get(pool.metadata.name ?? '')), pool),
        specs,
      );
    } catch (error) {
      if (!(error instanceof NodeGroupSpecError)) throw error;
      problems.push({
        path: error.path,
        message: `${c.cloud}${c.region === undefined ? '' : ` ${c.region}`}: ${error.reason}`,
      });
    }
  }
  return problems;
}
