/**
 * What the property tests compare of two schedulers' results: each new node claim's pool, pods,
 * instance-type options, requests and requirements; the pods placed on each existing node; and
 * each pod error. Pods are named, so results of equal pods built twice compare equal.
 */
import type { Pod } from '@karpenter-ts/api';
import type { SchedulingResults } from '../src/index.js';

/** See the module comment. */
export function resultsSummary(r: SchedulingResults): unknown {
  const n = (p: Pod) => p.metadata?.name;
  return {
    claims: r.newNodeClaims.map((c) => ({
      pool: c.nodePoolName,
      pods: c.pods.map(n),
      options: c.instanceTypeOptions.map((it) => it.name),
      requests: c.requests,
      requirements: c.requirements.toString(),
    })),
    existing: r.existingNodes.map((e) => ({ name: e.name, pods: e.pods.map(n) })),
    errors: [...r.podErrors].map(([p, e]) => [n(p), e]),
  };
}
