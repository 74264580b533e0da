/**
 * The disruptions each NodePool's budgets allow now, per reason (Empty, Drifted,
 * Underutilized), as the disruption controller computes them (`buildBudgetMapping`): the
 * minimum over the active budgets for the reason (percentages of the pool's counted nodes
 * rounded up), minus the nodes already disrupting.
 */
import type { DisruptionReason, NodePool } from '@karpenter-ts/api';
import {
  buildBudgetMapping,
  describeBudget,
  Unlimited,
  type StateNode,
} from '@karpenter-ts/controllers';

/** The reasons budgets are kept for, in the order the methods run. */
export const BUDGET_REASONS: readonly DisruptionReason[] = ['Empty', 'Drifted', 'Underutilized'];

/** One NodePool's budget for one reason. */
export interface BudgetReport {
  readonly nodePool: string;
  readonly reason: DisruptionReason;
  /** Disruptions allowed now, or `unlimited` when no budget applies. */
  readonly allowed: number | 'unlimited';
  /** Nodes the budgets count (initialized, managed). */
  readonly nodes: number;
  /** Of them, nodes already disrupting (not Ready, deleting or marked). */
  readonly disrupting: number;
  /** The budget that sets the limit: `nodes: 0 (schedule "0 9 * * 1-5" for 8h)`. */
  readonly limitedBy?: string;
  /** A budget that could not be read (it allows 0). */
  readonly error?: string;
}

/** Budgets of every pool for every reason, pools in name order. */
export function budgetReports(
  nodes: readonly StateNode[],
  pools: readonly NodePool[],
  nowMs: number,
): BudgetReport[] {
  const sorted = [...pools].sort((a, b) =>
    (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1,
  );
  const out: BudgetReport[] = [];
  for (const pool of sorted) {
    const name = pool.metadata.name ?? '';
    for (const reason of BUDGET_REASONS) {
      const b = buildBudgetMapping(nodes, [pool], reason, nowMs).pools.get(name);
      if (b === undefined) continue;
      const { verdict } = b;
      out.push({
        nodePool: name,
        reason,
        allowed:
          verdict.allowed >= Unlimited ? 'unlimited' : Math.max(0, verdict.allowed - b.disrupting),
        nodes: b.nodes,
        disrupting: b.disrupting,
        ...(verdict.limitingBudget ? { limitedBy: describeBudget(verdict.limitingBudget) } : {}),
        ...(verdict.error !== undefined ? { error: verdict.error } : {}),
      });
    }
  }
  return out;
}
