/**
 * The scheduling simulation behind every disruption decision (upstream `disruption/helpers.go`
 * `SimulateScheduling`): what would happen to the pods if the candidates
 * were gone. It runs the provisioner's own Scheduler (same NodePools, catalog, daemonset
 * overhead, solver and policies) over the pending pods, the candidates' reschedulable pods and
 * the pods of nodes already going away, with every other node as an existing node.
 *
 * It fails when a pod that has to move (not a pending one) cannot be scheduled, or would only
 * fit on an uninitialized node (we assume a deleted node's pods move at once, which a node that is
 * not ready cannot take), unless that pod came from a node already being deleted.
 *
 * The simulations of one pass share one Scheduler (built on the first, over every node of the
 * pass that is not going away) and solve without their candidates: the existing-node state is
 * prepared once per pass instead of once per simulation, and the results are those of a
 * Scheduler built over the remaining nodes alone.
 */
import type { Pod } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import type { Scheduler, SchedulingResults } from '@karpenter-ts/scheduling';
import type { PdbLimits } from '../pdb-limits.js';
import { podKey } from '../pods.js';
import {
  currentlyReschedulable,
  type Provisioner,
  type SchedulingInputs,
} from '../provisioning/provisioner.js';
import type { StateNode } from '../state/state-node.js';
import type { Candidate } from './candidate.js';

/** The cluster as one disruption pass sees it; built once per pass and shared by its simulations. */
export interface SimulationContext {
  readonly provisioner: Provisioner;
  readonly inputs: SchedulingInputs;
  /** Every state node (a snapshot taken at the start of the pass). */
  readonly nodes: readonly StateNode[];
  /** Pending pods (provisionable and valid). */
  readonly pendingPods: readonly Pod[];
  readonly pdbs: PdbLimits;
  readonly nowMs: number;
}

/** What removing some candidates would do. */
export interface SimulationResult {
  readonly results: SchedulingResults<InstanceType>;
  /** Pods that must move and cannot, with the reason; empty when the candidates may go. */
  readonly failures: ReadonlyMap<Pod, string>;
}

/** The pass's Scheduler over every node not going away, per context (built on first use). */
const passSchedulers = new WeakMap<SimulationContext, Scheduler<InstanceType>>();

function passScheduler(ctx: SimulationContext): Scheduler<InstanceType> {
  let scheduler = passSchedulers.get(ctx);
  if (scheduler === undefined) {
    scheduler = ctx.provisioner.newScheduler(
      ctx.inputs,
      ctx.nodes.filter((n) => !n.markedForDeletion && !n.deleting()),
    );
    passSchedulers.set(ctx, scheduler);
  }
  return scheduler;
}

/** Runs the simulation for `candidates` (see the module comment). */
export function simulateScheduling(
  ctx: SimulationContext,
  candidates: readonly Candidate[],
): SimulationResult {
  const removed = new Set(candidates.map((c) => c.name));
  const deleting = ctx.nodes.filter(
    (n) => !removed.has(n.name()) && (n.markedForDeletion || n.deleting()),
  );
  const kept = ctx.nodes.filter(
    (n) => !removed.has(n.name()) && !n.markedForDeletion && !n.deleting(),
  );
  const fromDeleting = currentlyReschedulable(deleting, ctx.pdbs, ctx.nowMs);
  const moving = candidates.flatMap((c) => c.reschedulablePods);
  const pods = dedupe([...ctx.pendingPods, ...moving, ...fromDeleting]);
  const results = passScheduler(ctx).solve(pods, { without: removed });

  const mustMove = new Set(moving.map(podKey));
  const fromDeletingKeys = new Set(fromDeleting.map(podKey));
  const failures = new Map<Pod, string>();
  for (const [pod, message] of results.podErrors) {
    if (mustMove.has(podKey(pod))) failures.set(pod, message);
  }
  const uninitialized = new Set(kept.filter((n) => !n.initialized()).map((n) => n.name()));
  for (const placement of results.existingNodes) {
    if (!uninitialized.has(placement.name)) continue;
    for (const pod of placement.pods) {
      const key = podKey(pod);
      if (mustMove.has(key) && !fromDeletingKeys.has(key)) {
        failures.set(pod, `would schedule against uninitialized node ${placement.name}`);
      }
    }
  }
  return { results, failures };
}

/** The first failure as one line: `pod default/web-1 would not schedule: <reason>`. */
export function describeFailures(failures: ReadonlyMap<Pod, string>): string {
  const first = failures.entries().next();
  if (first.done === true) return '';
  const [pod, message] = first.value;
  const more = failures.size > 1 ? ` (and ${failures.size - 1} more)` : '';
  return `pod ${podKey(pod)} would not schedule: ${message}${more}`;
}

function dedupe(pods: Pod[]): Pod[] {
  const seen = new Set<string>();
  return pods.filter((p) => {
    const k = podKey(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
