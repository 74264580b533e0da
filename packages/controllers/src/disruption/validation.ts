/**
 * Command validation (upstream `disruption/validation.go`):
 * 15 s after an emptiness or consolidation command was computed, the cluster is read again and
 * the command must still hold.
 * - Candidates are derived anew with the same filters; budgets are recomputed and taken again.
 *   Emptiness proceeds with the candidates still empty and within budget (a partial command is
 *   fine); consolidation fails if any candidate dropped out.
 * - Consolidation re-simulates: every pod that must move still schedules; a delete still needs no
 *   new node; a replace still needs exactly one, and its instance-type options are among the new
 *   simulation's options.
 */
import type { Command } from './command.js';
import { buildBudgetMapping } from './budget-mapping.js';
import { buildCandidates, type Candidate } from './candidate.js';
import type { DisruptionMethod, MethodContext } from './method.js';
import { describeFailures, simulateScheduling } from './simulation.js';
import type { NodePool } from '@karpenter-ts/api';

/** The command to start (possibly with fewer candidates), or why it no longer holds. */
export type ValidationOutcome =
  | { readonly command: Command; readonly reason?: undefined }
  | { readonly command?: undefined; readonly reason: string };

/** See the module comment. `queued`: nodes other commands hold. */
export function validateCommand(
  ctx: MethodContext,
  method: DisruptionMethod,
  command: Command,
  queued: ReadonlySet<string>,
): ValidationOutcome {
  const { sim } = ctx;
  const { candidates } = buildCandidates(
    sim.nodes,
    {
      nowMs: sim.nowMs,
      nodePools: sim.inputs.pools as ReadonlyMap<string, NodePool>,
      instanceTypes: sim.inputs.instanceTypes,
      pdbs: sim.pdbs,
      queued,
    },
    method.disruptionClass,
  );
  const fresh = new Map(candidates.map((c) => [c.name, c]));
  const budgets = buildBudgetMapping(
    sim.nodes,
    [...sim.inputs.pools.values()],
    method.reason,
    sim.nowMs,
  );
  const partial = method.name === 'emptiness';
  const kept: Candidate[] = [];
  for (const old of command.candidates) {
    const c = fresh.get(old.name);
    const why =
      c === undefined ? 'it is no longer a candidate' : method.shouldDisrupt(c, sim.nowMs);
    if (c === undefined || why !== undefined) {
      if (partial) continue;
      return { reason: `node ${old.name}: ${why}` };
    }
    if (!budgets.take(c.nodePoolName)) {
      if (partial) continue;
      return {
        reason: `node ${old.name}: the disruption budget of nodepool ${c.nodePoolName} no longer allows it`,
      };
    }
    kept.push(c);
  }
  if (kept.length === 0) return { reason: 'no candidate is left' };
  if (partial) return { command: { ...command, candidates: kept } };

  const { results, failures } = simulateScheduling(sim, kept);
  if (failures.size > 0) return { reason: describeFailures(failures) };
  const expected = command.replacements.length;
  if (results.newNodeClaims.length !== expected) {
    return {
      reason: `the simulation now needs ${results.newNodeClaims.length} new node(s), not ${expected}`,
    };
  }
  const replacement = command.replacements[0];
  const now = results.newNodeClaims[0];
  if (replacement !== undefined && now !== undefined) {
    const allowed = new Set(now.instanceTypeOptions.map((it) => it.name));
    const missing = replacement.instanceTypeOptions.find((it) => !allowed.has(it.name));
    if (missing !== undefined) {
      return { reason: `instance type ${missing.name} is no longer an option for the replacement` };
    }
  }
  return { command: { ...command, candidates: kept } };
}
