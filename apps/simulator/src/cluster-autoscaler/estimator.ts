/**
 * CA's binpacking estimator: how many new nodes of a group the pending pods need, and which
 * pods they would hold. Pods are packed first-fit onto template nodes by the same Scheduler fit
 * rules the kube-scheduler stand-in uses (resources, taints, selectors and affinity, topology),
 * so a pod the group can never hold is left out of its option.
 */
import type { DaemonSet, Pod } from '@karpenter-ts/api';
import { podRequests, Scheduler, type ExistingNodeInput } from '@karpenter-ts/scheduling';
import type { NodeGroup } from './node-groups.js';
import { templateNodes } from './template-node.js';

/** A scale-up option: `nodeCount` new nodes of `group` would hold `pods`. */
export interface ScaleUpOption {
  readonly group: NodeGroup;
  readonly nodeCount: number;
  readonly pods: readonly Pod[];
}

/**
 * The option for `group` (undefined when it can hold none of `pods` or has no room left).
 * `room`: how many more nodes the group may have (max size − current size).
 */
export function estimate(
  group: NodeGroup,
  pods: readonly Pod[],
  daemonSets: readonly DaemonSet[],
  room: number,
  solver: 'wasm' | 'ts',
): ScaleUpOption | undefined {
  if (room <= 0 || pods.length === 0) return undefined;
  // An upper bound on the nodes needed: twice what the total requests take, plus one, within the
  // group's room; what does not fit waits for the next loop, as CA's estimator caps its result.
  const alloc = group.instanceType.allocatable();
  let cpu = 0;
  let memory = 0;
  for (const p of pods) {
    const r = podRequests(p);
    cpu += r.cpu ?? 0;
    memory += r.memory ?? 0;
  }
  const byResources = Math.max(
    (alloc.cpu ?? 0) > 0 ? cpu / (alloc.cpu ?? 1) : 0,
    (alloc.memory ?? 0) > 0 ? memory / (alloc.memory ?? 1) : 0,
    (alloc.pods ?? 0) > 0 ? pods.length / (alloc.pods ?? 1) : 0,
  );
  const bound = Math.min(room, pods.length, Math.ceil(byResources) * 2 + 1);
  const nodes = templateNodes(group, daemonSets, bound, `estimate-${group.name}`);
  const results = new Scheduler({
    nodePools: [],
    instanceTypes: new Map(),
    existingNodes: nodes,
    solver,
  }).solve(pods);
  const wanted = new Set(pods.map(podKey));
  const placed: Pod[] = [];
  let used = 0;
  for (const placement of results.existingNodes) {
    const mine = placement.pods.filter((p) => wanted.has(podKey(p)));
    if (mine.length === 0) continue;
    used++;
    placed.push(...mine);
  }
  return used === 0 ? undefined : { group, nodeCount: used, pods: placed };
}

/** Keys (`namespace/name`) of the pods of `pods` that fit on `nodes` (nodes being launched), packed first-fit. */
export function podsFittingOn(
  nodes: readonly ExistingNodeInput[],
  pods: readonly Pod[],
  solver: 'wasm' | 'ts',
): Set<string> {
  const fitting = new Set<string>();
  if (nodes.length === 0 || pods.length === 0) return fitting;
  const results = new Scheduler({
    nodePools: [],
    instanceTypes: new Map(),
    existingNodes: nodes,
    solver,
  }).solve(pods);
  for (const placement of results.existingNodes)
    for (const p of placement.pods) fitting.add(podKey(p));
  return fitting;
}

/** `namespace/name` of a pod. */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;
}
