/**
 * A disruption command (upstream `disruption/types.go` `Command`): the candidates a method
 * decided to remove, and the replacement node claims to launch first (none for a delete).
 */
import type { DisruptionReason } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import type { NewNodeClaim } from '@karpenter-ts/scheduling';
import type { Candidate, DisruptionClass } from './candidate.js';

/** The disruption methods, in the order the controller tries them. */
export type MethodName =
  'emptiness' | 'drift' | 'multi-node-consolidation' | 'single-node-consolidation';

/** Upstream's `consolidation_type` metric label of a method ('' for non-consolidation). */
export function consolidationType(method: MethodName): string {
  if (method === 'emptiness') return 'empty';
  if (method === 'multi-node-consolidation') return 'multi';
  if (method === 'single-node-consolidation') return 'single';
  return '';
}

/** See the module comment. Prices USD/hour. */
export interface Command {
  readonly method: MethodName;
  readonly reason: DisruptionReason;
  readonly disruptionClass: DisruptionClass;
  readonly candidates: readonly Candidate[];
  /** Node claims to launch before the candidates go; their options are sorted cheapest first. */
  readonly replacements: readonly NewNodeClaim<InstanceType>[];
  /** Σ candidate prices minus the cheapest replacement offering (0 when not priced). */
  readonly savings: number;
  /**
   * Existing nodes the simulation moved the candidates' pods to; starting the command nominates
   * them (upstream `Results.Record`), so no other command takes them meanwhile.
   */
  readonly destinations: readonly string[];
}

/** `delete` without replacements, else `replace` (upstream's `decision` metric label). */
export function decision(command: Command): 'delete' | 'replace' {
  return command.replacements.length === 0 ? 'delete' : 'replace';
}

/** A one-line account of a command, for logs and events: `delete 2 node(s) (Empty): a, b`. */
export function describeCommand(command: Command): string {
  const names = command.candidates.map((c) => c.name).join(', ');
  const types = command.replacements.map((r) => r.instanceTypeOptions[0]?.name ?? '?').join(', ');
  const replace = command.replacements.length > 0 ? ` and replace with ${types}` : '';
  return `${decision(command)} ${command.candidates.length} node(s) (${command.reason})${replace}: ${names}`;
}

/** A node a method looked at and did not act on, and why (the dry run prints these). */
export interface Skipped {
  readonly name: string;
  readonly method: MethodName;
  readonly reason: string;
}
