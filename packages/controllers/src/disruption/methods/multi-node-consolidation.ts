/**
 * Multi-node consolidation (upstream `disruption/multinodeconsolidation.go`): remove several nodes
 * at once, replacing them with at most one node. Candidates are sorted
 * by savings ratio (highest first) and cut by the budgets; then a binary search over the prefix
 * length (at least 2 nodes) finds the longest prefix that consolidates: success tries longer,
 * failure shorter, the last success wins. A replacement must be cheaper than keeping any
 * candidate of the same instance type (else deleting fewer nodes is better, fewer pods move).
 *
 * Upstream caps the search at 100 candidates and 1 minute; we keep the 100-candidate prefix cap
 * (it bounds a command's size, not just its cost) and drop the timeout.
 */
import { Labels } from '@karpenter-ts/api';
import { availableCompatibleOfferings, worstCaseLaunchPrice } from '@karpenter-ts/cloudprovider';
import type { BudgetMapping } from '../budget-mapping.js';
import { bySavingsRatio, type Candidate } from '../candidate.js';
import type { Command, Skipped } from '../command.js';
import type { DisruptionMethod, MethodContext, MethodResult } from '../method.js';
import { computeConsolidation, consolidationFilter, narrowTo } from './consolidation.js';

/** The most nodes one multi-node command removes (upstream caps its search at 100). */
export const MaxMultiNodeCandidates = 100;

/** See the module comment. */
export class MultiNodeConsolidation implements DisruptionMethod {
  readonly name = 'multi-node-consolidation' as const;
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
    const within: Candidate[] = [];
    const left = budgets.clone();
    for (const c of [...candidates].sort(bySavingsRatio)) {
      if (left.take(c.nodePoolName)) within.push(c);
    }
    const pool = within.slice(0, MaxMultiNodeCandidates);
    if (pool.length < 2) return { commands: [], skipped };
    let lo = 1;
    let hi = pool.length - 1;
    let best: Command | undefined;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      const prefix = pool.slice(0, mid + 1);
      const outcome = computeConsolidation(ctx, this.name, prefix);
      let command = outcome.command;
      if (command !== undefined && command.replacements.length > 0) {
        command = withoutSameTypeOptions(command);
      }
      if (command !== undefined) {
        best = command;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (best === undefined) return { commands: [], skipped };
    for (const c of best.candidates) budgets.take(c.nodePoolName);
    return { commands: [best], skipped };
  }
}

/**
 * Drops replacement options that cost as much as keeping a candidate of the same instance type
 * (upstream `filterOutSameInstanceType`); undefined when none is left.
 */
function withoutSameTypeOptions(command: Command): Command | undefined {
  const replacement = command.replacements[0];
  if (replacement === undefined) return command;
  const cheapestKept = new Map<string, number>();
  for (const c of command.candidates) {
    const type = c.instanceType?.name ?? c.node.metadata?.labels?.[Labels.InstanceType];
    if (type === undefined) continue;
    const prior = cheapestKept.get(type);
    if (prior === undefined || c.price < prior) cheapestKept.set(type, c.price);
  }
  let maxPrice = Number.POSITIVE_INFINITY;
  for (const it of replacement.instanceTypeOptions) {
    const p = cheapestKept.get(it.name);
    if (p !== undefined && p < maxPrice) maxPrice = p;
  }
  if (maxPrice === Number.POSITIVE_INFINITY) return command;
  const reqs = replacement.requirements;
  const kept = replacement.instanceTypeOptions.filter(
    (it) => worstCaseLaunchPrice(availableCompatibleOfferings(it.offerings, reqs), reqs) < maxPrice,
  );
  if (kept.length === 0) return undefined;
  return { ...command, replacements: [narrowTo(replacement, kept)] };
}
