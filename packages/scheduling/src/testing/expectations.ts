/**
 * Expectation helpers (upstream `pkg/test/expectations` style). They throw an Error with a
 * readable message, so they work under any test runner.
 */
import type { Pod } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { compileLabelSelector } from '../label-selector.js';
import type { LabelSelector } from '@karpenter-ts/api';
import type { NewNodeClaim, SchedulerInstanceType, SchedulingResults } from '../scheduler-types.js';

/** Where a pod went. */
export type Placement<IT extends SchedulerInstanceType = SchedulerInstanceType> =
  | { readonly kind: 'nodeclaim'; readonly index: number; readonly nodeClaim: NewNodeClaim<IT> }
  | { readonly kind: 'existing'; readonly name: string };

function podName(p: Pod): string {
  return `${p.metadata?.namespace ?? 'default'}/${p.metadata?.name ?? '?'}`;
}

/** The placement of a pod, or undefined. */
export function placementOf<IT extends SchedulerInstanceType>(
  results: SchedulingResults<IT>,
  pod: Pod,
): Placement<IT> | undefined {
  const index = results.newNodeClaims.findIndex((c) => c.pods.includes(pod));
  if (index >= 0)
    return {
      kind: 'nodeclaim',
      index,
      nodeClaim: results.newNodeClaims[index] as NewNodeClaim<IT>,
    };
  const existing = results.existingNodes.find((n) => n.pods.includes(pod));
  return existing === undefined ? undefined : { kind: 'existing', name: existing.name };
}

/** Asserts the pod was scheduled and returns where. */
export function expectScheduled<IT extends SchedulerInstanceType>(
  results: SchedulingResults<IT>,
  pod: Pod,
): Placement<IT> {
  const placement = placementOf(results, pod);
  if (placement === undefined) {
    throw new Error(
      `expected pod ${podName(pod)} to be scheduled, but: ${results.podErrors.get(pod) ?? 'it is nowhere in the results'}`,
    );
  }
  return placement;
}

/** Asserts the pod was scheduled onto a new node claim and returns it. */
export function expectNewNodeClaim<IT extends SchedulerInstanceType>(
  results: SchedulingResults<IT>,
  pod: Pod,
): NewNodeClaim<IT> {
  const placement = expectScheduled(results, pod);
  if (placement.kind !== 'nodeclaim')
    throw new Error(
      `expected pod ${podName(pod)} on a new node claim, it went to existing node ${placement.name}`,
    );
  return placement.nodeClaim;
}

/** Asserts the pod was not scheduled and returns its error message. */
export function expectNotScheduled(results: SchedulingResults, pod: Pod): string {
  const placement = placementOf(results, pod);
  if (placement !== undefined) {
    throw new Error(
      `expected pod ${podName(pod)} not to be scheduled, but it went to ${
        placement.kind === 'existing'
          ? `existing node ${placement.name}`
          : `node claim ${placement.index} (nodepool ${placement.nodeClaim.nodePoolName})`
      }`,
    );
  }
  const error = results.podErrors.get(pod);
  if (error === undefined)
    throw new Error(`pod ${podName(pod)} is neither scheduled nor in podErrors`);
  return error;
}

/**
 * The number of scheduled pods matching `selector` (in `namespace`, default `default`) per
 * domain of `topologyKey`, sorted descending — what upstream's `ExpectSkew` compares. New node
 * claims count under their single decided value (hostname: one domain per claim); pods on a claim
 * whose domain is undecided count under `<undecided>`. Pods placed on existing nodes count per node
 * (results do not carry node labels), so use it for zones only when no existing node took pods.
 */
export function expectSkew(
  results: SchedulingResults,
  topologyKey: string,
  selector: LabelSelector,
  namespace = 'default',
): number[] {
  const matcher = compileLabelSelector(selector);
  const counts = new Map<string, number>();
  const add = (domain: string, pods: readonly Pod[]) => {
    const n = pods.filter(
      (p) =>
        (p.metadata?.namespace ?? 'default') === namespace && matcher.matches(p.metadata?.labels),
    ).length;
    if (n > 0) counts.set(domain, (counts.get(domain) ?? 0) + n);
  };
  results.newNodeClaims.forEach((c, i) => {
    if (topologyKey === Labels.Hostname) return add(`nodeclaim-${i}`, c.pods);
    const r = c.requirements.get(topologyKey);
    add(
      !r.complement && r.values.size === 1 ? (r.valuesList()[0] as string) : '<undecided>',
      c.pods,
    );
  });
  for (const n of results.existingNodes) add(`existing:${n.name}`, n.pods);
  return [...counts.values()].sort((a, b) => b - a);
}
