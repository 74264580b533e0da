/**
 * Disruption candidates (upstream `disruption/types.go`
 * `NewCandidate` and `state/statenode.go` `ValidateNodeDisruptable` / `ValidatePodsDisruptable`).
 *
 * A node may be a candidate when it has both a NodeClaim and a Node, is initialized, is not
 * marked for deletion, deleting or nominated, carries no node `karpenter.sh/do-not-disrupt:
 * "true"`, names a NodePool that exists and has instance types, and its pods allow it: no active
 * pod (DaemonSet and mirror pods included) with an active do-not-disrupt, every evictable pod's
 * PodDisruptionBudget allows a disruption (DaemonSet pods included: the drain evicts them), no
 * pod with more than one budget. For the eventual disruption class (drift) the pod checks are skipped when the
 * NodeClaim has a `terminationGracePeriod`, as upstream: the drain then ends at its deadline.
 */
import type { Node, NodeClaim, NodePool, Pod } from '@karpenter-ts/api';
import { Annotations, Labels } from '@karpenter-ts/api';
import { CapacityTypeLabel, ZoneLabel, type InstanceType } from '@karpenter-ts/cloudprovider';
import { timeMs } from '../clock.js';
import type { PdbLimits } from '../pdb-limits.js';
import { hasDoNotDisrupt, isActive, isMirrorPod, isReschedulable, podKey } from '../pods.js';
import type { StateNode } from '../state/state-node.js';

/** Graceful methods respect every pod block; eventual ones (drift) may bypass them under a TGP. */
export type DisruptionClass = 'graceful' | 'eventual';

/** One node that a disruption method may act on. Prices in USD/hour. */
export interface Candidate {
  readonly stateNode: StateNode;
  /** The Node name. */
  readonly name: string;
  readonly node: Node;
  readonly nodeClaim: NodeClaim;
  readonly nodePool: NodePool;
  readonly nodePoolName: string;
  /** The node's instance type from its pool's catalog; undefined when the catalog lacks it. */
  readonly instanceType: InstanceType | undefined;
  readonly zone: string | undefined;
  readonly capacityType: string | undefined;
  /** Price of the offering matching the node's zone and capacity type; 0 when unknown (upstream). */
  readonly price: number;
  /** Pods that must find a new home (active or terminating StatefulSet pods; no DaemonSet or mirror pods). */
  readonly reschedulablePods: readonly Pod[];
  /** 1 + Σ max(0, eviction cost) of the reschedulable pods (upstream `RescheduleDisruptionCost`). */
  readonly disruptionCost: number;
}

/** A node that is not a candidate, and why (for events and the dry run). */
export interface NotCandidate {
  readonly name: string;
  readonly nodePoolName: string | undefined;
  readonly reason: string;
  /** True when the reason is something a user set (do-not-disrupt, a PDB) and deserves a `DisruptionBlocked` event. */
  readonly blocked: boolean;
}

/** What {@link buildCandidates} needs to know about the cluster. */
export interface CandidateContext {
  readonly nowMs: number;
  readonly nodePools: ReadonlyMap<string, NodePool>;
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  readonly pdbs: PdbLimits;
  /** Nodes already in the orchestration queue (by Node name). */
  readonly queued: ReadonlySet<string>;
}

/**
 * The eviction cost of a pod (upstream `disruptionutils.EvictionCost`): 1 +
 * `controller.kubernetes.io/pod-deletion-cost` / 2^27 + priority / 2^25, clamped to [−10, 10].
 */
export function evictionCost(pod: Pod): number {
  let cost = 1;
  const deletionCost = Number(
    pod.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost'],
  );
  if (Number.isFinite(deletionCost)) cost += deletionCost / 2 ** 27;
  if (pod.spec?.priority !== undefined) cost += pod.spec.priority / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

/**
 * Splits the state nodes into candidates for a method of class `disruptionClass` and the nodes
 * that are not, each with its reason. Unmanaged nodes and nodes still launching are left out of
 * both lists (they are never disrupted and need no explanation).
 */
export function buildCandidates(
  nodes: readonly StateNode[],
  ctx: CandidateContext,
  disruptionClass: DisruptionClass,
): { candidates: Candidate[]; notCandidates: NotCandidate[] } {
  const candidates: Candidate[] = [];
  const notCandidates: NotCandidate[] = [];
  for (const n of nodes) {
    if (!n.managed() || n.node === undefined || n.nodeClaim === undefined) continue;
    const result = toCandidate(n, n.node, n.nodeClaim, ctx, disruptionClass);
    if ('reason' in result) notCandidates.push(result);
    else candidates.push(result);
  }
  return { candidates, notCandidates };
}

function toCandidate(
  n: StateNode,
  node: Node,
  nodeClaim: NodeClaim,
  ctx: CandidateContext,
  disruptionClass: DisruptionClass,
): Candidate | NotCandidate {
  const name = n.name();
  const nodePoolName = n.nodePoolName();
  const no = (reason: string, blocked = false): NotCandidate => ({
    name,
    nodePoolName,
    reason,
    blocked,
  });
  if (ctx.queued.has(name)) return no('already being disrupted');
  if (!n.initialized()) return no('not initialized');
  if (n.markedForDeletion || n.deleting()) return no('being deleted');
  if (n.nominated(ctx.nowMs)) return no('nominated for a pending pod');
  if (node.metadata?.annotations?.[Annotations.DoNotDisrupt] === 'true') {
    return no(`node has ${Annotations.DoNotDisrupt}`, true);
  }
  if (nodePoolName === undefined) return no(`node has no ${Labels.NodePool} label`);
  const nodePool = ctx.nodePools.get(nodePoolName);
  if (nodePool === undefined) return no(`nodepool ${nodePoolName} not found or not ready`);
  const types = ctx.instanceTypes.get(nodePoolName);
  if (types === undefined || types.length === 0) {
    return no(`nodepool ${nodePoolName} has no instance types`);
  }
  const labels = n.labels();
  const bypassPods =
    disruptionClass === 'eventual' && nodeClaim.spec.terminationGracePeriod !== undefined;
  if (!bypassPods) {
    // Every active pod counts, DaemonSet and mirror pods included (upstream lets them block).
    const blocker = n.pods.find((p) => isActive(p) && hasDoNotDisrupt(p, ctx.nowMs));
    if (blocker !== undefined)
      return no(`pod ${podKey(blocker)} has ${Annotations.DoNotDisrupt}`, true);
    // Every pod the drain would evict: DaemonSet pods too, not mirror pods.
    const pdb = ctx.pdbs.blocking(n.pods.filter((p) => isActive(p) && !isMirrorPod(p)));
    if (pdb !== undefined) return no(pdb, true);
  }
  const instanceType = types.find((it) => it.name === labels[Labels.InstanceType]);
  const zone = labels[ZoneLabel];
  const capacityType = labels[CapacityTypeLabel];
  const offering = instanceType?.offerings.find(
    (o) => o.zone === zone && o.capacityType === capacityType,
  );
  const reschedulablePods = n.pods.filter(isReschedulable);
  const disruptionCost =
    1 + reschedulablePods.reduce((sum, p) => sum + Math.max(0, evictionCost(p)), 0);
  return {
    stateNode: n,
    name,
    node,
    nodeClaim,
    nodePool,
    nodePoolName,
    instanceType,
    zone,
    capacityType,
    price: offering?.price ?? 0,
    reschedulablePods,
    disruptionCost,
  };
}

/** Price per unit of disruption, the order consolidation tries candidates in (highest first). */
export function savingsRatio(c: Candidate): number {
  return c.price / c.disruptionCost;
}

/** Sorts by savings ratio, highest first; ties by node name for determinism. */
export function bySavingsRatio(a: Candidate, b: Candidate): number {
  const d = savingsRatio(b) - savingsRatio(a);
  return d !== 0 ? d : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Milliseconds of a NodeClaim condition's last transition, or undefined. */
export function conditionTimeMs(nodeClaim: NodeClaim, type: string): number | undefined {
  return timeMs(nodeClaim.status?.conditions?.find((c) => c.type === type)?.lastTransitionTime);
}
