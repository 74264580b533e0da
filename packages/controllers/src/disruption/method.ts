/**
 * The shape every disruption method shares (upstream `disruption/types.go` `Method`): a
 * predicate over one candidate (may this method disrupt it, and if not, why) and a compute step
 * over the candidates that pass and the budget left per NodePool, returning commands. The
 * controller owns only the order of the methods and the queue.
 */
import type { DisruptionReason, NodePool } from '@karpenter-ts/api';
import { NodeClaimConditions, parseDuration } from '@karpenter-ts/api';
import type { Clock } from '../clock.js';
import { notConsolidatableReason } from '../nodeclaim/disruption/consolidatable.js';
import { isTrue } from '../conditions.js';
import type { KubeClient } from '../kube/client.js';
import type { BudgetMapping } from './budget-mapping.js';
import type { Candidate, DisruptionClass } from './candidate.js';
import type { Command, MethodName, Skipped } from './command.js';
import type { SimulationContext } from './simulation.js';

/** What a method's compute step may use. */
export interface MethodContext {
  readonly sim: SimulationContext;
  readonly client: KubeClient;
  readonly clock: Clock;
  /** Feature gate `SpotToSpotConsolidation` (default off, as upstream). */
  readonly spotToSpotConsolidation: boolean;
}

/** What a compute step returns. */
export interface MethodResult {
  /** Commands to start (after validation, for methods that validate). */
  readonly commands: readonly Command[];
  /** Candidates looked at and left, with the reason. */
  readonly skipped: readonly Skipped[];
}

/** See the module comment. */
export interface DisruptionMethod {
  readonly name: MethodName;
  readonly reason: DisruptionReason;
  readonly disruptionClass: DisruptionClass;
  /** Whether a command waits {@link ValidationDelaySeconds} and is re-simulated before it starts. */
  readonly validates: boolean;
  /** Undefined when this method may disrupt the candidate, else why not. */
  shouldDisrupt(candidate: Candidate, nowMs: number): string | undefined;
  /** Commands for the candidates that passed {@link shouldDisrupt}, within `budgets`. */
  computeCommands(
    ctx: MethodContext,
    budgets: BudgetMapping,
    candidates: readonly Candidate[],
  ): MethodResult;
}

/** Seconds a consolidation command waits before it is validated (upstream `consolidationTTL`). */
export const ValidationDelaySeconds = 15;

/** `spec.disruption.consolidateAfter` in seconds; null for `Never`; 0 when unset (the default). */
export function consolidateAfterSeconds(pool: NodePool): number | null {
  const text = pool.spec.disruption?.consolidateAfter;
  if (text === undefined) return 0;
  try {
    return parseDuration(text);
  } catch {
    return null; // Unreadable: never consolidate rather than guess.
  }
}

/**
 * The checks emptiness and consolidation share: a static pool is not theirs, `consolidateAfter:
 * Never` turns them off, and the NodeClaim must be `Consolidatable` (else, at `nowMs`, when it
 * will be: `consolidatable at <time>`, as consolidation's filter says it).
 */
export function consolidationBlocker(candidate: Candidate, nowMs: number): string | undefined {
  if (candidate.nodePool.spec.replicas !== undefined) return 'nodepool is static';
  const after = consolidateAfterSeconds(candidate.nodePool);
  if (after === null) return 'consolidateAfter is Never';
  if (!isTrue(candidate.nodeClaim, NodeClaimConditions.Consolidatable)) {
    return notConsolidatableReason(candidate.nodeClaim, after, nowMs);
  }
  return undefined;
}
