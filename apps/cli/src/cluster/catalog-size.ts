/**
 * The size bound of an in-memory cluster's scheduler: its catalog holds one row per NodePool and
 * instance type the NodePool may launch, at most MAX_CATALOG_ROWS (the solver's bound). An input
 * of thousands of NodePools on a catalog of hundreds of types passes it; the run is refused
 * up front with the counts, instead of failing inside the scheduler.
 */
import { MAX_CATALOG_ROWS, typeCompatible } from '@karpenter-ts/scheduling';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { CliError } from '../errors.js';
import { nodePoolRequirements } from '../explain/why.js';
import type { PlannedNodePool } from '../simulation/node-pools.js';

/**
 * Raises a CliError (`a simulation holds at most N ...`) when `pools` may launch more
 * (NodePool, instance type) pairs than the scheduler's catalog holds. A pool counts the types of
 * `instanceTypes(name)` compatible with its requirements and labels (the scheduler's template
 * adds its NodeClass label, so it keeps at most as many).
 */
export function checkCatalogSize(
  pools: readonly PlannedNodePool[],
  instanceTypes: (poolName: string) => readonly InstanceType[],
): void {
  const names = pools.map((p) => p.nodePool.metadata.name ?? '');
  // Every type of every pool is within the bound in nearly every input: no need to filter.
  if (names.reduce((sum, name) => sum + instanceTypes(name).length, 0) <= MAX_CATALOG_ROWS) return;
  let rows = 0;
  pools.forEach((p, i) => {
    const requirements = nodePoolRequirements(p.nodePool);
    for (const it of instanceTypes(names[i]!)) if (typeCompatible(it, requirements)) rows++;
  });
  if (rows <= MAX_CATALOG_ROWS) return;
  const n = (x: number) => x.toLocaleString('en-US');
  throw new CliError(
    `a simulation holds at most ${n(MAX_CATALOG_ROWS)} (NodePool, instance type) pairs; the input's ${n(pools.length)} NodePools may launch ${n(rows)}: use fewer NodePools or narrow their requirements`,
  );
}
