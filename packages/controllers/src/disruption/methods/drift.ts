/**
 * Drift (upstream `disruption/drift.go`): replace NodeClaims marked
 * `Drifted`, one candidate per command, oldest drift first and empty nodes before the others.
 * Each candidate's pods are simulated with the pending pods; when a pod that has to move cannot
 * be scheduled the candidate is skipped (a `DisruptionBlocked` event) and the next one is tried.
 * The command launches every replacement the simulation asks for (zero or more). Drift does not
 * wait for validation. It is of the eventual class: a NodeClaim with a terminationGracePeriod may
 * be drifted although a PDB or do-not-disrupt pod would block a graceful method.
 */
import { NodeClaimConditions } from '@karpenter-ts/api';
import { isTrue } from '../../conditions.js';
import type { BudgetMapping } from '../budget-mapping.js';
import { conditionTimeMs, type Candidate } from '../candidate.js';
import type { Command, Skipped } from '../command.js';
import type { DisruptionMethod, MethodContext, MethodResult } from '../method.js';
import { describeFailures, simulateScheduling } from '../simulation.js';
import { budgetReason } from './emptiness.js';

/** See the module comment. */
export class Drift implements DisruptionMethod {
  readonly name = 'drift' as const;
  readonly reason = 'Drifted' as const;
  readonly disruptionClass = 'eventual' as const;
  readonly validates = false;

  shouldDisrupt(candidate: Candidate): string | undefined {
    if (candidate.nodePool.spec.replicas !== undefined) return 'nodepool is static';
    if (!isTrue(candidate.nodeClaim, NodeClaimConditions.Drifted)) return 'not drifted';
    return undefined;
  }

  computeCommands(
    ctx: MethodContext,
    budgets: BudgetMapping,
    candidates: readonly Candidate[],
  ): MethodResult {
    const skipped: Skipped[] = [];
    const ordered = [...candidates].sort((a, b) => {
      const ea = a.reschedulablePods.length === 0 ? 0 : 1;
      const eb = b.reschedulablePods.length === 0 ? 0 : 1;
      if (ea !== eb) return ea - eb;
      const ta = conditionTimeMs(a.nodeClaim, NodeClaimConditions.Drifted) ?? 0;
      const tb = conditionTimeMs(b.nodeClaim, NodeClaimConditions.Drifted) ?? 0;
      return ta !== tb ? ta - tb : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    for (const c of ordered) {
      if (budgets.left(c.nodePoolName) <= 0) {
        skipped.push({ name: c.name, method: this.name, reason: budgetReason(budgets, c) });
        continue;
      }
      const { results, failures } = simulateScheduling(ctx.sim, [c]);
      if (failures.size > 0) {
        const reason = describeFailures(failures);
        skipped.push({ name: c.name, method: this.name, reason });
        ctx.client.recordEvent({
          involved: { kind: 'Node', name: c.name },
          type: 'Warning',
          reason: 'DisruptionBlocked',
          message: `Cannot disrupt Node: Scheduling simulation failed to schedule all pods, ${reason}`,
        });
        continue;
      }
      budgets.take(c.nodePoolName);
      const command: Command = {
        method: this.name,
        reason: this.reason,
        disruptionClass: this.disruptionClass,
        candidates: [c],
        replacements: results.newNodeClaims,
        savings: 0,
        destinations: results.existingNodes.map((e) => e.name),
      };
      return { commands: [command], skipped };
    }
    return { commands: [], skipped };
  }
}
