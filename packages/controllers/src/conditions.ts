/**
 * Status conditions of Karpenter objects (`status.conditions`, operatorpkg style): get one, set
 * one (the transition time moves only when the status changes), and the NodeClaim root `Ready`
 * (Launched ∧ Registered ∧ Initialized).
 */
import type { ConditionStatus, NodeClaim, StatusCondition } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';

/** Anything with optional `status.conditions`. */
export interface WithConditions {
  status?: { conditions?: StatusCondition[] } | undefined;
}

/** The condition of that type, or undefined. */
export function getCondition(object: WithConditions, type: string): StatusCondition | undefined {
  return object.status?.conditions?.find((c) => c.type === type);
}

/** True when the condition is present with status `True`. */
export function isTrue(object: WithConditions, type: string): boolean {
  return getCondition(object, type)?.status === 'True';
}

/** The condition's status, `Unknown` when absent. */
export function conditionStatus(object: WithConditions, type: string): ConditionStatus {
  return getCondition(object, type)?.status ?? 'Unknown';
}

/** What to set: type, status and optionally reason and message. */
export interface ConditionUpdate {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * Sets a condition on `object.status.conditions` in place. `lastTransitionTime` (RFC 3339 from
 * `nowMs`) changes only when the status changes. Returns true when anything changed.
 */
export function setCondition(
  object: { status?: { conditions?: StatusCondition[] } },
  update: ConditionUpdate,
  nowMs: number,
): boolean {
  object.status ??= {};
  const conditions = (object.status.conditions ??= []);
  const existing = conditions.find((c) => c.type === update.type);
  const reason = update.reason ?? (update.status === 'True' ? update.type : '');
  const message = update.message ?? '';
  if (existing === undefined) {
    conditions.push({
      type: update.type,
      status: update.status,
      lastTransitionTime: new Date(nowMs).toISOString(),
      reason,
      message,
    });
    return true;
  }
  if (
    existing.status === update.status &&
    (existing.reason ?? '') === reason &&
    (existing.message ?? '') === message
  ) {
    return false;
  }
  if (existing.status !== update.status) {
    existing.lastTransitionTime = new Date(nowMs).toISOString();
  }
  existing.status = update.status;
  existing.reason = reason;
  existing.message = message;
  return true;
}

/**
 * Recomputes the NodeClaim root `Ready` condition from Launched, Registered and Initialized:
 * True when all three are True, else the first non-True one's status and reason.
 */
export function setNodeClaimReady(nodeClaim: NodeClaim, nowMs: number): boolean {
  for (const type of [
    NodeClaimConditions.Launched,
    NodeClaimConditions.Registered,
    NodeClaimConditions.Initialized,
  ]) {
    const c = getCondition(nodeClaim, type);
    if (c?.status !== 'True') {
      return setCondition(
        nodeClaim,
        {
          type: NodeClaimConditions.Ready,
          status: c?.status === 'False' ? 'False' : 'Unknown',
          reason: c?.reason || `${type}NotTrue`,
          message: c?.message ?? '',
        },
        nowMs,
      );
    }
  }
  return setCondition(nodeClaim, { type: NodeClaimConditions.Ready, status: 'True' }, nowMs);
}
