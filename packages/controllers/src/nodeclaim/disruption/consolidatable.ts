/**
 * The NodeClaim `Consolidatable` condition (upstream `nodeclaim/disruption/consolidation.go`):
 * True once the NodeClaim is Initialized and
 * `consolidateAfter` has passed since the last pod event on its node (`status.lastPodEventTime`),
 * or since it was initialized when no pod event was recorded. Removed while consolidation is off
 * (`consolidateAfter: Never`), before initialization and while the wait runs.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { timeMs } from '../../clock.js';
import { getCondition, setCondition } from '../../conditions.js';
import { consolidateAfterSeconds } from '../../disruption/method.js';
import { removeCondition } from './remove-condition.js';

/**
 * When the NodeClaim becomes consolidatable (clock ms) given `consolidateAfter` in seconds;
 * undefined while it is not initialized.
 */
export function consolidatableAt(
  nodeClaim: NodeClaim,
  consolidateAfter: number,
): number | undefined {
  const initialized = getCondition(nodeClaim, NodeClaimConditions.Initialized);
  if (initialized?.status !== 'True') return undefined;
  const since =
    timeMs(nodeClaim.status?.lastPodEventTime) ?? timeMs(initialized.lastTransitionTime);
  return since === undefined ? undefined : since + consolidateAfter * 1000;
}

/**
 * Why a NodeClaim that is not `Consolidatable` is not, at `nowMs`, for the disruption methods'
 * reasons: `consolidatable at <RFC 3339>` while its wait runs; `not consolidatable yet` when the
 * time is unknown (not initialized) or already past (the condition is about to be set).
 */
export function notConsolidatableReason(
  nodeClaim: NodeClaim,
  consolidateAfter: number,
  nowMs: number,
): string {
  const at = consolidatableAt(nodeClaim, consolidateAfter);
  return at === undefined || at <= nowMs
    ? 'not consolidatable yet'
    : `consolidatable at ${new Date(at).toISOString().replace('.000Z', 'Z')}`;
}

/**
 * Sets or removes `Consolidatable` on `nodeClaim` in place at `nowMs`. Returns whether it changed
 * and, while waiting, the seconds until it would become True.
 */
export function reconcileConsolidatable(
  nodePool: NodePool,
  nodeClaim: NodeClaim,
  nowMs: number,
): { changed: boolean; requeueAfter?: number } {
  const after = consolidateAfterSeconds(nodePool);
  const at = after === null ? undefined : consolidatableAt(nodeClaim, after);
  if (at === undefined || at > nowMs) {
    const changed = removeCondition(nodeClaim, NodeClaimConditions.Consolidatable);
    return at === undefined ? { changed } : { changed, requeueAfter: (at - nowMs) / 1000 };
  }
  const changed = setCondition(
    nodeClaim,
    { type: NodeClaimConditions.Consolidatable, status: 'True' },
    nowMs,
  );
  return { changed };
}
