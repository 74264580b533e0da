/**
 * One disruption pass over a loaded snapshot, as the disruption controller would make it at the
 * clock's time, without acting: the NodePool controllers (validation, readiness, hash) and the
 * NodeClaim disruption conditions (Consolidatable, Drifted) are brought up to that time first,
 * and nothing else runs: no provisioning, launch, garbage collection or expiration, so the
 * snapshot's machines stay as they are.
 *
 * Drift the sim cloud cannot recompute is carried over from the snapshot
 * ({@link seedSnapshotDrift}): a provider's own reason (an image, a NodeClass change), and a
 * `NodePoolDrifted` computed by another hash version (upstream Karpenter's), which the NodePool
 * hash controller would otherwise re-baseline away.
 */
import { Annotations, NodeClaimConditions, NodePoolHashVersion } from '@karpenter-ts/api';
import type { SimCloudProvider } from '@karpenter-ts/cloudprovider';
import { getCondition } from '../conditions.js';
import type { DisruptionPlan } from '../disruption/controller.js';
import type { KubeClient } from '../kube/client.js';
import type { ControllerLoop } from './controller-loop.js';
import type { ClusterSnapshot } from './snapshot.js';

/** Drift reasons the NodeClaim disruption controller recomputes from the NodePool and catalog. */
const RecomputedDriftReasons: ReadonlySet<string> = new Set([
  'RequirementsDrifted',
  'InstanceTypeNotFound',
]);

/**
 * Tells the sim cloud the drift reasons of the snapshot's NodeClaims that it cannot recompute
 * (see the module comment). Returns the NodeClaim names seeded.
 */
export function seedSnapshotDrift(cloud: SimCloudProvider, snapshot: ClusterSnapshot): string[] {
  const seeded: string[] = [];
  for (const { object } of snapshot.nodeClaims) {
    const drifted = getCondition(object, NodeClaimConditions.Drifted);
    if (drifted?.status !== 'True' || !drifted.reason) continue;
    if (RecomputedDriftReasons.has(drifted.reason)) continue;
    const version = object.metadata.annotations?.[Annotations.NodePoolHashVersion];
    if (drifted.reason === 'NodePoolDrifted' && version === NodePoolHashVersion) continue;
    cloud.setDrifted(object.metadata.name ?? '', drifted.reason);
    seeded.push(object.metadata.name ?? '');
  }
  return seeded;
}

/**
 * Brings NodePool status and NodeClaim disruption conditions to the loop's clock (see the module
 * comment), then returns the disruption controller's plan. The loop must be started.
 */
export async function planDisruptionNow(
  loop: ControllerLoop,
  client: KubeClient,
): Promise<DisruptionPlan> {
  for (const pool of await client.list('NodePool')) {
    const name = pool.metadata.name ?? '';
    await loop.nodePoolValidation.reconcile(name);
    await loop.nodePoolReadiness.reconcile(name);
    await loop.nodePoolHash.reconcile(name);
  }
  for (const claim of await client.list('NodeClaim'))
    await loop.nodeClaimDisruption.reconcile(claim.metadata.name ?? '');
  return loop.disruption.plan();
}
