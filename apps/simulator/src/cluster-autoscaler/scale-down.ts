/**
 * CA's scale-down rules for one node, as a predicate giving the reason a node is needed (or
 * undefined when it is unneeded):
 * - only nodes of a node group above its minimum size (Ready or not: the model waits longer for
 *   an unready one, `--scale-down-unready-time`), not annotated
 *   `cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"`, not already being removed;
 * - utilization (the larger of requested ÷ allocatable cpu and memory, DaemonSet pods counted,
 *   as CA's default) under 0.5;
 * - every pod but DaemonSet pods must be movable: not `safe-to-evict: "false"`; unless
 *   `safe-to-evict: "true"`, backed by a controller, not a kube-system pod without a PDB, without
 *   local storage (emptyDir, hostPath); and its PodDisruptionBudget must allow the disruption;
 * - and every such pod must fit on another node (the Scheduler's fit rules over the other Ready
 *   nodes, with the pods already moved there by this pass's earlier removals).
 */
import type { Node, Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import {
  compileLabelSelector,
  podRequests,
  resourceListFromQuantities,
  Scheduler,
  type ExistingNodeInput,
} from '@karpenter-ts/scheduling';
import { isDaemonSetPod } from '@karpenter-ts/controllers';
import {
  SAFE_TO_EVICT_ANNOTATION,
  SCALE_DOWN_DISABLED_ANNOTATION,
  SCALE_DOWN_UTILIZATION_THRESHOLD,
} from './defaults.js';
import { podKey } from './estimator.js';

/** Requested ÷ allocatable of a node's pods: cpu, memory, and the larger (CA's utilization). */
export function utilization(
  node: Node,
  pods: readonly Pod[],
): { cpu: number; memory: number; max: number } {
  const alloc = resourceListFromQuantities(node.status?.allocatable ?? {});
  let cpu = 0;
  let memory = 0;
  for (const p of pods) {
    const r = podRequests(p);
    cpu += r.cpu ?? 0;
    memory += r.memory ?? 0;
  }
  const c = (alloc.cpu ?? 0) > 0 ? cpu / (alloc.cpu ?? 1) : 0;
  const m = (alloc.memory ?? 0) > 0 ? memory / (alloc.memory ?? 1) : 0;
  return { cpu: c, memory: m, max: Math.max(c, m) };
}

/** Why `pod` keeps its node from scale-down, or undefined. `pdbs` carry `status.disruptionsAllowed`. */
export function podBlocksScaleDown(
  pod: Pod,
  pdbs: readonly PodDisruptionBudget[],
  podsOfNode: readonly Pod[],
): string | undefined {
  const name = podKey(pod);
  const safe = pod.metadata?.annotations?.[SAFE_TO_EVICT_ANNOTATION];
  if (safe === 'false') return `pod ${name} has ${SAFE_TO_EVICT_ANNOTATION}: "false"`;
  const pdb = pdbs.find(
    (b) =>
      (b.metadata?.namespace ?? 'default') === (pod.metadata?.namespace ?? 'default') &&
      compileLabelSelector(b.spec?.selector).matches(pod.metadata?.labels ?? {}),
  );
  if (safe !== 'true') {
    const controlled = (pod.metadata?.ownerReferences ?? []).length > 0;
    if (!controlled) return `pod ${name} is not backed by a controller`;
    if ((pod.metadata?.namespace ?? 'default') === 'kube-system' && pdb === undefined)
      return `kube-system pod ${name} has no PodDisruptionBudget`;
    if ((pod.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined || v.hostPath !== undefined))
      return `pod ${name} has local storage`;
  }
  if (pdb !== undefined) {
    const selector = compileLabelSelector(pdb.spec?.selector);
    const onNode = podsOfNode.filter(
      (p) =>
        !isDaemonSetPod(p) &&
        (p.metadata?.namespace ?? 'default') === (pdb.metadata?.namespace ?? 'default') &&
        selector.matches(p.metadata?.labels ?? {}),
    ).length;
    if ((pdb.status?.disruptionsAllowed ?? 0) < onNode)
      return `pod ${name}: PodDisruptionBudget ${pdb.metadata?.namespace ?? 'default'}/${pdb.metadata?.name ?? ''} allows ${pdb.status?.disruptionsAllowed ?? 0} disruption(s), the node holds ${onNode} of its pods`;
  }
  return undefined;
}

/** A node as the scale-down pass sees it. */
export interface ScaleDownNode {
  readonly node: Node;
  /** Active pods bound to it (DaemonSet pods included). */
  readonly pods: readonly Pod[];
  /** The group may shrink (its size is above its minimum). */
  readonly aboveMinSize: boolean;
}

/**
 * Why `candidate` is needed, or undefined when it may be removed; when it may, its pods are
 * added to the destinations in `others` (name → scheduler input), so the next candidate of the
 * same pass sees them there. `others` must not hold `candidate` itself.
 */
export function neededReason(
  candidate: ScaleDownNode,
  others: Map<string, ExistingNodeInput>,
  pdbs: readonly PodDisruptionBudget[],
  solver: 'wasm' | 'ts',
): string | undefined {
  const { node, pods } = candidate;
  if (!candidate.aboveMinSize) return 'its node group is at its minimum size';
  if (node.metadata?.annotations?.[SCALE_DOWN_DISABLED_ANNOTATION] === 'true')
    return `annotated ${SCALE_DOWN_DISABLED_ANNOTATION}`;
  const u = utilization(node, pods);
  if (u.max >= SCALE_DOWN_UTILIZATION_THRESHOLD)
    return `utilization ${u.max.toFixed(2)} is not under ${SCALE_DOWN_UTILIZATION_THRESHOLD}`;
  const moving = pods.filter((p) => !isDaemonSetPod(p));
  for (const p of moving) {
    const blocked = podBlocksScaleDown(p, pdbs, pods);
    if (blocked !== undefined) return blocked;
  }
  if (moving.length === 0) return undefined;
  const destinations = [...others.values()];
  const results = new Scheduler({
    nodePools: [],
    instanceTypes: new Map(),
    existingNodes: destinations,
    solver,
  }).solve(moving.map(unbound));
  const stuck = [...results.podErrors.keys()][0];
  if (stuck !== undefined) return `pod ${podKey(stuck)} fits on no other node`;
  for (const placement of results.existingNodes) {
    const dest = others.get(placement.name);
    if (dest === undefined || placement.pods.length === 0) continue;
    others.set(placement.name, { ...dest, pods: [...(dest.pods ?? []), ...placement.pods] });
  }
  return undefined;
}

/** The pod as a pending pod (for placing it elsewhere). */
function unbound(pod: Pod): Pod {
  const copy = structuredClone(pod);
  if (copy.spec !== undefined) delete copy.spec.nodeName;
  return copy;
}
