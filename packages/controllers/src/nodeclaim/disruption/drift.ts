/**
 * The NodeClaim `Drifted` condition (upstream `nodeclaim/disruption/drift.go`), for launched
 * NodeClaims only; the first reason that holds wins:
 * - `NodePoolDrifted`: the NodePool's `karpenter.sh/nodepool-hash` differs from the NodeClaim's
 *   while both carry the same hash version (a version change re-baselines instead, see the
 *   NodePool hash controller);
 * - `RequirementsDrifted`: a NodePool requirement is not strictly compatible with the NodeClaim's
 *   labels (well-known labels are not allowed to be undefined here);
 * - `InstanceTypeNotFound`: once the NodeClaim is older than 1 h, at most every 30 min: its
 *   instance type label is missing, the catalog no longer has the type, or no offering of it is
 *   compatible with the NodeClaim's labels (well-known keys the NodeClaim lacks are allowed, as
 *   upstream; a reserved NodeClaim may match on-demand offerings);
 * - the cloud provider's own reason (`isDrifted`, e.g. an image or NodeClass change).
 * Otherwise the condition is removed. Rechecked every 5 minutes.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import { Annotations, Labels } from '@karpenter-ts/api';
import {
  CapacityTypeLabel,
  isUnevaluatedNodePoolError,
  type CloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import { allowUndefinedWellKnownLabels, Requirements } from '@karpenter-ts/scheduling';
import { timeMs } from '../../clock.js';

/** Seconds between drift checks of one NodeClaim. */
export const DriftRequeueSeconds = 300;
/** The instance-type check starts once the NodeClaim is this old (seconds). */
export const InstanceTypeCheckAgeSeconds = 3600;
/** ...and then runs at most this often (seconds). */
export const InstanceTypeCheckIntervalSeconds = 1800;

/** `NodePoolDrifted` when the static hashes differ under the same hash version, else ''. */
export function staticDrift(nodePool: NodePool, nodeClaim: NodeClaim): string {
  const pa = nodePool.metadata.annotations ?? {};
  const ca = nodeClaim.metadata.annotations ?? {};
  const poolHash = pa[Annotations.NodePoolHash];
  const poolVersion = pa[Annotations.NodePoolHashVersion];
  const claimHash = ca[Annotations.NodePoolHash];
  const claimVersion = ca[Annotations.NodePoolHashVersion];
  if (!poolHash || !poolVersion || !claimHash || !claimVersion) return '';
  if (poolVersion !== claimVersion) return '';
  return poolHash !== claimHash ? 'NodePoolDrifted' : '';
}

/** `RequirementsDrifted` when the pool's requirements no longer admit the NodeClaim's labels, else ''. */
export function requirementsDrift(nodePool: NodePool, nodeClaim: NodeClaim): string {
  const pool = Requirements.fromNodeSelectorRequirements(
    nodePool.spec.template.spec.requirements ?? [],
  );
  const labels = Requirements.fromLabels(nodeClaim.metadata.labels ?? {});
  return labels.isCompatible(pool, new Set()) ? '' : 'RequirementsDrifted';
}

/**
 * `InstanceTypeNotFound` when the NodeClaim's instance type or a compatible offering is gone,
 * else ''. As upstream, an offering is compatible with the NodeClaim's labels when every key both
 * define intersects; a well-known key the offering requires and the NodeClaim lacks (a label a
 * provider added after the node launched, such as `karpenter.azure.com/placement-scope`) is
 * allowed: `allowUndefined`, default Karpenter's own well-known labels (pass
 * `allowUndefinedWellKnownLabels(providerLabels)` for a provider's).
 */
export async function instanceTypeDrift(
  cloudProvider: CloudProvider,
  nodePool: NodePool,
  nodeClaim: NodeClaim,
  allowUndefined: ReadonlySet<string> = allowUndefinedWellKnownLabels(),
): Promise<string> {
  const labels = nodeClaim.metadata.labels ?? {};
  const name = labels[Labels.InstanceType];
  if (name === undefined) return 'InstanceTypeNotFound';
  let types: InstanceType[];
  try {
    types = await cloudProvider.getInstanceTypes(nodePool);
  } catch (err) {
    // Awaiting NodeOverlay evaluation: no verdict yet rather than a false InstanceTypeNotFound.
    if (isUnevaluatedNodePoolError(err)) return '';
    throw err;
  }
  const it = types.find((t) => t.name === name);
  if (it === undefined) return 'InstanceTypeNotFound';
  const asLabels =
    labels[CapacityTypeLabel] === 'reserved'
      ? [labels, { ...labels, [CapacityTypeLabel]: 'on-demand' }]
      : [labels];
  const found = asLabels.some((l) => {
    const reqs = Requirements.fromLabels(l);
    return it.offerings.some((o) => reqs.isCompatible(o.requirements, allowUndefined));
  });
  return found ? '' : 'InstanceTypeNotFound';
}

/** Per-process memory of when each NodeClaim's instance type was last checked. */
export class InstanceTypeCheckTimes {
  readonly #last = new Map<string, number>();

  /** Whether to check now (and if so, records the check). */
  due(nodeClaim: NodeClaim, nowMs: number): boolean {
    const created = timeMs(nodeClaim.metadata.creationTimestamp) ?? nowMs;
    if (nowMs - created < InstanceTypeCheckAgeSeconds * 1000) return false;
    const key = nodeClaim.metadata.uid ?? nodeClaim.metadata.name ?? '';
    const last = this.#last.get(key);
    if (last !== undefined && nowMs - last < InstanceTypeCheckIntervalSeconds * 1000) return false;
    this.#last.set(key, nowMs);
    return true;
  }

  /** Forgets a NodeClaim (deleted). */
  forget(nodeClaim: NodeClaim): void {
    this.#last.delete(nodeClaim.metadata.uid ?? nodeClaim.metadata.name ?? '');
  }
}
