/**
 * Status as the controllers read it: shaped by its schema. `validate` ignores status (the API
 * server drops it from a created object), so a snapshot may carry status fields that do not fit.
 */
import { validate, type NodeClaim, type NodePool } from '@karpenter-ts/api';

/**
 * `claim` (a NodeClaim or a NodePool), or a copy without the `status` fields that do not fit its
 * status schema (`validate` ignores status, as the API server drops it from a created object,
 * so such a snapshot validates; the controllers read status as the schema shapes it), and their
 * names.
 */
export function withReadableStatus<T extends NodeClaim | NodePool>(
  claim: T,
): { claim: T; dropped: string[] } {
  if (claim.status === undefined) return { claim, dropped: [] };
  const problems = validate(claim, { subresource: 'status' });
  const dropped = [
    ...new Set(
      problems.flatMap(
        (v) => /^status\.([^.[]+)/.exec(v.path)?.[1] ?? (v.path === 'status' ? ['*'] : []),
      ),
    ),
  ];
  if (dropped.length === 0) return { claim, dropped };
  if (dropped.includes('*')) {
    const { status: _status, ...rest } = claim;
    return { claim: rest as T, dropped: ['status'] };
  }
  const status = { ...claim.status } as Record<string, unknown>;
  for (const key of dropped) delete status[key];
  return { claim: { ...claim, status } as T, dropped: dropped.map((k) => `status.${k}`) };
}
