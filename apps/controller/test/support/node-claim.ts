/**
 * A `karpenter.sh/v1` NodeClaim built from the few fields a test cares about. Plain module, no
 * vitest import, so both the unit suite and the e2e suite (test/e2e/vitest.config.ts) use it.
 */
import type { NodeClaim, NodeClaimSpec, ResourceQuantities } from '@karpenter-ts/api';

/** What a test NodeClaim asks for. */
export interface NodeClaimFields {
  /** Its `karpenter.sh/nodepool` label; no labels when unset. */
  readonly nodePool?: string;
  readonly nodeClassRef: NodeClaimSpec['nodeClassRef'];
  /** `spec.requirements`; none when unset. */
  readonly requirements?: NodeClaimSpec['requirements'];
  /** `spec.resources.requests` (quantities such as `500m`, `1Gi`); no `resources` when unset. */
  readonly requests?: ResourceQuantities;
}

/** NodeClaim `name` with {@link NodeClaimFields}; no status. */
export function nodeClaim(name: string, fields: NodeClaimFields): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      ...(fields.nodePool === undefined
        ? {}
        : { labels: { 'karpenter.sh/nodepool': fields.nodePool } }),
    },
    spec: {
      nodeClassRef: fields.nodeClassRef,
      requirements: fields.requirements ?? [],
      ...(fields.requests === undefined ? {} : { resources: { requests: fields.requests } }),
    },
  };
}
