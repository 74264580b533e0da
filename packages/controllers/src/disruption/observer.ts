/**
 * Hooks the disruption controllers call so an app can count what they do (the controller app
 * maps them to upstream's Prometheus metrics; the simulator to its
 * measures). Every hook is optional and must not throw.
 */
import type { DisruptionReason, NodeClaim } from '@karpenter-ts/api';
import type { Command, MethodName } from './command.js';

/** See the module comment. */
export interface DisruptionObserver {
  /** A method finished evaluating (`voluntary_disruption_decision_evaluation_duration_seconds`); seconds of wall time. */
  evaluated?(method: MethodName, reason: DisruptionReason, seconds: number): void;
  /** Candidates a method may act on (`voluntary_disruption_eligible_nodes{reason}`). */
  eligibleNodes?(reason: DisruptionReason, count: number): void;
  /** Disruptions left per pool for a reason (`nodepools_allowed_disruptions{nodepool,reason}`). */
  allowedDisruptions?(nodePool: string, reason: DisruptionReason, allowed: number): void;
  /** A command started (`voluntary_disruption_decisions_total{decision,reason,consolidation_type}`). */
  commandStarted?(command: Command): void;
  /** A replacement NodeClaim was created (`nodeclaims_created_total{reason}`). */
  nodeClaimCreated?(nodeClaim: NodeClaim, reason: DisruptionReason): void;
  /** A candidate's NodeClaim was deleted by a command (`nodeclaims_disrupted_total`). */
  nodeClaimDisrupted?(nodeClaim: NodeClaim, command: Command): void;
  /** A command failed validation (`voluntary_disruption_failed_validations_total`). */
  failedValidation?(command: Command, why: string): void;
  /** A command was rolled back (`voluntary_disruption_queue_failures_total`). */
  queueFailure?(command: Command, why: string): void;
}
