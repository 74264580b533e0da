/**
 * Every node of a disruption pass and why it is (or is not) disrupted, in the controllers' own
 * words:
 * - in a command: `command 1: replace (single-node-consolidation, Underutilized)`;
 * - not a candidate at all (the candidate checks: do-not-disrupt, a PDB, not initialized, ...);
 * - a candidate every method declined: the reasons the methods gave, leaving out the ones that
 *   only say a method is not for this node (`not empty` from emptiness, `not drifted` from drift,
 *   `empty (emptiness removes it)` from consolidation) and repeats;
 * - a candidate no method got to: the pass stops at the first method with a command;
 * - a Node without a NodeClaim: unmanaged capacity, never disrupted.
 * A NodeClaim past its `expireAfter` is said to be expiring: expiration deletes it whatever the
 * budgets (it is not a disruption method, so the pass does not show it as a command).
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { Labels, parseDuration } from '@karpenter-ts/api';
import {
  isDaemonSetPod,
  isMirrorPod,
  timeMs,
  type DisruptionPlan,
  type MethodName,
  type StateNode,
} from '@karpenter-ts/controllers';
import { roundUsd } from '../output/units.js';

/** What became of one node. */
export type NodeStatus = 'command' | 'not a candidate' | 'kept' | 'unmanaged';

/** One method's reason for a node. */
export interface MethodReason {
  /** The method; undefined for the candidate checks every method shares. */
  readonly method?: MethodName;
  readonly reason: string;
}

/** One node of the pass. */
export interface NodeReport {
  readonly name: string;
  readonly nodePool: string | undefined;
  readonly instanceType: string | undefined;
  readonly zone: string | undefined;
  readonly capacityType: string | undefined;
  /** USD/hour of its offering; undefined when the catalog does not price it. */
  readonly pricePerHour: number | undefined;
  /** Pods on it that are not DaemonSet or mirror pods. */
  readonly pods: number;
  readonly status: NodeStatus;
  /** The verdict in one line. */
  readonly reason: string;
  /** Every reason given (a node may be declined by several methods). */
  readonly reasons: readonly MethodReason[];
  /** When its NodeClaim expires (`expireAfter`), RFC 3339; undefined without one. */
  readonly expiresAt?: string;
}

/** Reasons that say a method is not for this node, not why the node stays. */
const NOT_THIS_METHOD: ReadonlySet<string> = new Set([
  'not empty',
  'not drifted',
  'empty (emptiness removes it)',
]);

/** The report of every node (sorted by name); `price` looks a node's offering up in the catalog. */
export function nodeReports(
  nodes: readonly StateNode[],
  plan: DisruptionPlan,
  nowMs: number,
  price: (labels: Readonly<Record<string, string>>) => number | undefined,
): NodeReport[] {
  const inCommand = new Map<string, string>();
  plan.commands.forEach((c, i) => {
    const what = `command ${i + 1}: ${c.replacements.length === 0 ? 'delete' : 'replace'} (${c.method}, ${c.reason})`;
    for (const candidate of c.candidates) inCommand.set(candidate.name, what);
  });
  const notCandidate = new Map(plan.notCandidates.map((n) => [n.name, n.reason]));
  const out: NodeReport[] = [];
  for (const n of [...nodes].sort((a, b) => (a.name() < b.name() ? -1 : 1))) {
    const name = n.name();
    const labels = n.labels();
    const expiresAt = n.nodeClaim ? expiry(n.nodeClaim) : undefined;
    const base = {
      name,
      nodePool: labels[Labels.NodePool],
      instanceType: labels[Labels.InstanceType],
      zone: labels[Labels.TopologyZone],
      capacityType: labels[Labels.CapacityType],
      pricePerHour: ((p) => (p === undefined ? undefined : roundUsd(p)))(price(labels)),
      pods: n.pods.filter((p) => !isDaemonSetPod(p) && !isMirrorPod(p)).length,
      ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
    };
    const expiring =
      expiresAt !== undefined && expiresAt <= nowMs
        ? `; expired at ${rfc3339(expiresAt)}: expiration deletes it whatever the budgets`
        : '';
    if (!n.managed()) {
      const reason = 'unmanaged: no NodeClaim (capacity Karpenter does not manage)';
      out.push({ ...base, status: 'unmanaged', reason, reasons: [{ reason }] });
      continue;
    }
    const command = inCommand.get(name);
    if (command !== undefined) {
      out.push({
        ...base,
        status: 'command',
        reason: command + expiring,
        reasons: [{ reason: command }],
      });
      continue;
    }
    const not = notCandidate.get(name);
    if (not !== undefined) {
      out.push({
        ...base,
        status: 'not a candidate',
        reason: not + expiring,
        reasons: [{ reason: not }],
      });
      continue;
    }
    const reasons: MethodReason[] = plan.skipped
      .filter((s) => s.name === name)
      .map((s) => ({ method: s.method, reason: s.reason }));
    const telling = [
      ...new Set(reasons.map((r) => r.reason).filter((r) => !NOT_THIS_METHOD.has(r))),
    ];
    const summary =
      telling.length > 0
        ? telling.join('; ')
        : plan.method !== undefined
          ? `not looked at: the pass stopped at the ${plan.method} command (one method acts per pass)`
          : reasons.map((r) => r.reason).join('; ') || 'no method acts on it';
    out.push({ ...base, status: 'kept', reason: summary + expiring, reasons });
  }
  return out;
}

/** RFC 3339 without milliseconds when they are 0. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function expiry(nodeClaim: NodeClaim): number | undefined {
  const text = nodeClaim.spec.expireAfter;
  if (text === undefined) return undefined;
  let seconds: number | null;
  try {
    seconds = parseDuration(text);
  } catch {
    return undefined;
  }
  const created = timeMs(nodeClaim.metadata.creationTimestamp);
  return seconds === null || created === undefined ? undefined : created + seconds * 1000;
}
