/**
 * Single-node consolidation (upstream `disruption/singlenodeconsolidation.go`): try the candidates
 * one at a time, highest savings ratio first, taking the NodePools in
 * turn (round robin, so one large pool does not starve the others), and return the first
 * command: delete the node, or replace it with one cheaper node. A pool whose budget is used up
 * is skipped. Upstream stops after 3 minutes; this runs to the end (see the benchmark).
 */
import type { BudgetMapping } from '../budget-mapping.js';
import { bySavingsRatio, type Candidate } from '../candidate.js';
import type { Skipped } from '../command.js';
import type { DisruptionMethod, MethodContext, MethodResult } from '../method.js';
import { budgetReason } from './emptiness.js';
import { computeConsolidation, consolidationFilter } from './consolidation.js';

/** See the module comment. */
export class SingleNodeConsolidation implements DisruptionMethod {
  readonly name = 'single-node-consolidation' as const;
  readonly reason = 'Underutilized' as const;
  readonly disruptionClass = 'graceful' as const;
  readonly validates = true;

  shouldDisrupt(candidate: Candidate, nowMs: number): string | undefined {
    return consolidationFilter(candidate, nowMs);
  }

  computeCommands(
    ctx: MethodContext,
    budgets: BudgetMapping,
    candidates: readonly Candidate[],
  ): MethodResult {
    const skipped: Skipped[] = [];
    for (const c of roundRobinByPool([...candidates].sort(bySavingsRatio))) {
      if (budgets.left(c.nodePoolName) <= 0) {
        skipped.push({ name: c.name, method: this.name, reason: budgetReason(budgets, c) });
        continue;
      }
      const outcome = computeConsolidation(ctx, this.name, [c]);
      if (outcome.command === undefined) {
        skipped.push({ name: c.name, method: this.name, reason: outcome.reason });
        continue;
      }
      budgets.take(c.nodePoolName);
      return { commands: [outcome.command], skipped };
    }
    return { commands: [], skipped };
  }
}

/**
 * Interleaves candidates across NodePools, keeping each pool's order: the first of every pool
 * (pools in order of their first candidate), then the second of every pool, and so on.
 */
export function roundRobinByPool(sorted: readonly Candidate[]): Candidate[] {
  const byPool = new Map<string, Candidate[]>();
  for (const c of sorted) {
    let list = byPool.get(c.nodePoolName);
    if (list === undefined) {
      list = [];
      byPool.set(c.nodePoolName, list);
    }
    list.push(c);
  }
  const out: Candidate[] = [];
  const lists = [...byPool.values()];
  for (let i = 0; out.length < sorted.length; i++) {
    for (const list of lists) {
      const c = list[i];
      if (c !== undefined) out.push(c);
    }
  }
  return out;
}
