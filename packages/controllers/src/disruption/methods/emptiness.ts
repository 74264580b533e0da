/**
 * Emptiness (upstream `disruption/emptiness.go`): delete nodes with no
 * pod that has to move, under every consolidation policy. All empty candidates the budgets allow
 * go into one delete command, highest savings ratio first; the command is validated after 15 s
 * and then proceeds with the candidates still empty and within budget.
 */
import type { BudgetMapping } from '../budget-mapping.js';
import { bySavingsRatio, type Candidate } from '../candidate.js';
import type { Command, Skipped } from '../command.js';
import {
  consolidationBlocker,
  type DisruptionMethod,
  type MethodContext,
  type MethodResult,
} from '../method.js';

/** See the module comment. */
export class Emptiness implements DisruptionMethod {
  readonly name = 'emptiness' as const;
  readonly reason = 'Empty' as const;
  readonly disruptionClass = 'graceful' as const;
  readonly validates = true;

  shouldDisrupt(candidate: Candidate, nowMs: number): string | undefined {
    if (candidate.reschedulablePods.length > 0) return 'not empty';
    return consolidationBlocker(candidate, nowMs);
  }

  computeCommands(
    _ctx: MethodContext,
    budgets: BudgetMapping,
    candidates: readonly Candidate[],
  ): MethodResult {
    const chosen: Candidate[] = [];
    const skipped: Skipped[] = [];
    for (const c of [...candidates].sort(bySavingsRatio)) {
      if (budgets.take(c.nodePoolName)) chosen.push(c);
      else skipped.push({ name: c.name, method: this.name, reason: budgetReason(budgets, c) });
    }
    const commands: Command[] =
      chosen.length === 0
        ? []
        : [
            {
              method: this.name,
              reason: this.reason,
              disruptionClass: this.disruptionClass,
              candidates: chosen,
              replacements: [],
              savings: chosen.reduce((s, c) => s + c.price, 0),
              destinations: [],
            },
          ];
    return { commands, skipped };
  }
}

/** `budget for Empty is 0 (nodes: 0 (schedule "0 9 * * 1-5" for 8h))` or `... used up`. */
export function budgetReason(budgets: BudgetMapping, c: Candidate): string {
  const pool = budgets.pools.get(c.nodePoolName);
  const limiting = pool?.verdict.limitingBudget;
  if (pool?.verdict.error !== undefined) {
    return `budget for ${budgets.reason} is 0: ${pool.verdict.error}`;
  }
  if (pool !== undefined && pool.verdict.allowed - pool.disrupting > 0) {
    return `budget for ${budgets.reason} in nodepool ${c.nodePoolName} is used up by this pass`;
  }
  const detail =
    limiting === undefined
      ? ''
      : ` (nodes: ${limiting.nodes}${limiting.schedule !== undefined ? `, schedule ${JSON.stringify(limiting.schedule)} for ${limiting.duration}` : ''}${pool !== undefined && pool.disrupting > 0 ? `, ${pool.disrupting} node(s) already disrupting` : ''})`;
  return `budget for ${budgets.reason} in nodepool ${c.nodePoolName} is 0${detail}`;
}
