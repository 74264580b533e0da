/**
 * Pending reasons from NodePools the simulation cannot launch from: pools left out (a NodeClass
 * kind no cloud serves, or another cloud's kind in a mixed input) and pools that launch nothing
 * (requirements no instance type of the region offers). Such a pool explains a pending pod only
 * when it could have taken the pod, so its reason goes on those pods alone; the run notes every
 * such pool once (see planNodePools). Upstream has no such reasons: it never sees these pools.
 */
import type { NodePool, Pod, Toleration } from '@karpenter-ts/api';
import { KwokLabels } from '@karpenter-ts/cloudprovider';
import { AwsWellKnownLabels } from '@karpenter-ts/provider-aws';
import { AzureWellKnownLabels } from '@karpenter-ts/provider-azure';
import {
  podConstraints,
  relax,
  Requirements,
  toleratesAll,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  type PodConstraints,
} from '@karpenter-ts/scheduling';
import { nodePoolRequirements } from '../explain/why.js';

/** A NodePool the simulation cannot launch from, and why (one line). */
export interface BlockedNodePool {
  readonly nodePool: NodePool;
  readonly reason: string;
}

/**
 * Labels a NodePool may leave undefined and still match a pod that requires them: Karpenter's
 * and every provider's well-known labels, since a left-out pool's provider is not the simulated
 * one (or is unknown, for a misspelt kind) and we judge the pool as if its NodeClass were served.
 */
const ANY_PROVIDER_WELL_KNOWN: ReadonlySet<string> = new Set([
  ...WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  ...AzureWellKnownLabels,
  ...AwsWellKnownLabels,
  ...Object.values(KwokLabels),
]);

const TOLERATE_PREFER_NO_SCHEDULE: Toleration = { operator: 'Exists', effect: 'PreferNoSchedule' };

/**
 * Why `nodePool` could not take `pod` even if its NodeClass were served, or undefined when it
 * could: judged on the pool's taints and its template requirements and labels (with
 * `karpenter.sh/nodepool`) against the pod's tolerations, nodeSelector and required node
 * affinity, as the scheduler rejects a NodePool before looking at instance types
 * (`toleratesAll`, `Requirements.compatible`). Like the scheduler's preference relaxation, each
 * required node-affinity term is tried in turn, preferences are ignored and PreferNoSchedule
 * taints count as tolerated at the end. The first rejection is returned. Capacity, limits and
 * topology are not judged: they depend on instance types this pool does not have here.
 */
export function whyNodePoolWouldNotTake(nodePool: NodePool, pod: Pod): string | undefined {
  const taints = nodePool.spec.template.spec.taints ?? [];
  const preferNoSchedule = taints.some((t) => t.effect === 'PreferNoSchedule');
  let first: string | undefined;
  try {
    const poolRequirements = nodePoolRequirements(nodePool);
    let constraints: PodConstraints | undefined = podConstraints(pod, 'Ignore');
    while (constraints !== undefined) {
      const tolerations = constraints.toleratesPreferNoSchedule
        ? [...constraints.tolerations, TOLERATE_PREFER_NO_SCHEDULE]
        : constraints.tolerations;
      const incompatible = poolRequirements.compatible(
        requiredRequirements(constraints),
        ANY_PROVIDER_WELL_KNOWN,
      );
      const why =
        toleratesAll(tolerations, taints) ??
        (incompatible === undefined ? undefined : `incompatible requirements, ${incompatible}`);
      if (why === undefined) return undefined;
      first ??= why;
      constraints = relax(constraints, preferNoSchedule)?.constraints;
    }
  } catch (error) {
    // Malformed requirements: the scheduler already gives the pod "invalid pod: ...".
    return (error as Error).message;
  }
  return first;
}

/** The pod's nodeSelector and its first required node-affinity term, as the scheduler reads them. */
function requiredRequirements(constraints: PodConstraints): Requirements {
  const requirements = Requirements.fromLabels(constraints.nodeSelector);
  const term = constraints.requiredNodeTerms[0];
  if (term?.matchExpressions)
    requirements.add(...Requirements.fromNodeSelectorRequirements(term.matchExpressions).values());
  return requirements;
}

/**
 * The pending pods' reasons with the blocked NodePools' reasons added where they apply.
 * `noUsablePool` (every NodePool is blocked): each pod's reason becomes `no usable NodePool: `
 * and the reasons of the blocked pools that could have taken it, or, when none could,
 * `no usable NodePool (see the notes); ` and why each would not have taken it. Otherwise the
 * scheduler's reason is kept and the reasons of the blocked pools that could have taken the pod
 * are appended after `; `.
 */
export function withBlockedPoolReasons(
  podErrors: readonly { pod: Pod; reason: string }[],
  blocked: readonly BlockedNodePool[],
  noUsablePool: boolean,
): { pod: Pod; reason: string }[] {
  if (blocked.length === 0) return [...podErrors];
  return podErrors.map(({ pod, reason }) => {
    const rejections = blocked.map((b) => whyNodePoolWouldNotTake(b.nodePool, pod));
    const relevant = blocked.filter((_, i) => rejections[i] === undefined).map((b) => b.reason);
    if (noUsablePool) {
      if (relevant.length > 0) return { pod, reason: `no usable NodePool: ${relevant.join('; ')}` };
      const anyway = blocked.map(
        (b, i) =>
          `NodePool "${b.nodePool.metadata.name ?? ''}" would not take the pod anyway: ${rejections[i]}`,
      );
      return { pod, reason: `no usable NodePool (see the notes); ${anyway.join('; ')}` };
    }
    return relevant.length > 0
      ? { pod, reason: `${reason}; ${relevant.join('; ')}` }
      : { pod, reason };
  });
}
