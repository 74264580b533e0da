/**
 * The per-NodePool disruption budget left for one reason (upstream
 * `BuildDisruptionBudgetMapping`): the pool's allowed disruptions for the
 * reason minus the nodes already disrupting, floored at 0. Counted nodes are the managed,
 * initialized ones whose NodeClaim is not `InstanceTerminating`; disrupting are those among them
 * whose Node is not Ready, or that are marked for deletion or deleting.
 */
import type { DisruptionReason, NodePool } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { isTrue } from '../conditions.js';
import type { StateNode } from '../state/state-node.js';
import { allowedDisruptions, type BudgetVerdict } from './budgets.js';

/** One pool's budget for a reason. */
export interface PoolBudget {
  /** Counted nodes (see the module comment). */
  readonly nodes: number;
  /** Counted nodes already disrupting. */
  readonly disrupting: number;
  /** What the budgets allow before subtracting `disrupting`. */
  readonly verdict: BudgetVerdict;
}

/** Disruptions still allowed per NodePool name for one reason; methods decrement it as they pick. */
export class BudgetMapping {
  readonly #left = new Map<string, number>();

  constructor(
    readonly reason: DisruptionReason,
    /** Per pool name. */
    readonly pools: ReadonlyMap<string, PoolBudget>,
  ) {
    for (const [name, b] of pools) {
      this.#left.set(name, Math.max(0, b.verdict.allowed - b.disrupting));
    }
  }

  /** Disruptions left for the pool (0 for a pool not in the mapping). */
  left(pool: string): number {
    return this.#left.get(pool) ?? 0;
  }

  /** Takes one disruption from the pool; false (and nothing taken) when none is left. */
  take(pool: string): boolean {
    const left = this.left(pool);
    if (left <= 0) return false;
    this.#left.set(pool, left - 1);
    return true;
  }

  /** A copy with the same remaining counts (for a simulation that may not commit). */
  clone(): BudgetMapping {
    const copy = new BudgetMapping(this.reason, this.pools);
    for (const [k, v] of this.#left) copy.#left.set(k, v);
    return copy;
  }
}

/**
 * Builds the mapping for `reason` over the cluster's nodes and the given NodePools at `nowMs`.
 */
export function buildBudgetMapping(
  nodes: readonly StateNode[],
  nodePools: readonly NodePool[],
  reason: DisruptionReason,
  nowMs: number,
): BudgetMapping {
  const counted = new Map<string, number>();
  const disrupting = new Map<string, number>();
  for (const n of nodes) {
    if (!n.managed() || !n.initialized()) continue;
    if (n.nodeClaim !== undefined && isTrue(n.nodeClaim, NodeClaimConditions.InstanceTerminating))
      continue;
    const pool = n.nodePoolName();
    if (pool === undefined) continue;
    counted.set(pool, (counted.get(pool) ?? 0) + 1);
    const ready = n.node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (!ready || n.markedForDeletion || n.deleting()) {
      disrupting.set(pool, (disrupting.get(pool) ?? 0) + 1);
    }
  }
  const pools = new Map<string, PoolBudget>();
  for (const pool of nodePools) {
    const name = pool.metadata.name ?? '';
    const count = counted.get(name) ?? 0;
    pools.set(name, {
      nodes: count,
      disrupting: disrupting.get(name) ?? 0,
      verdict: allowedDisruptions(pool, reason, count, nowMs),
    });
  }
  return new BudgetMapping(reason, pools);
}
