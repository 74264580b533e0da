/**
 * `karpenter.sh/v1` NodeClaim: a request for one node, made by the provisioner (or a static
 * NodePool) and fulfilled by the cloud provider. Cluster-scoped; status subresource; the whole
 * spec is immutable once created.
 */
import type { ObjectMeta } from './core.js';
import type { NodeClaimTemplateFields, ResourceQuantities, StatusCondition } from './common.js';

/** `spec.resources` of a NodeClaim. */
export interface NodeClaimResources {
  /** Aggregate pod + daemonset requests the node must fit (quantities). */
  requests?: ResourceQuantities;
}

/** `spec` of a NodeClaim (immutable). */
export interface NodeClaimSpec extends NodeClaimTemplateFields {
  resources?: NodeClaimResources;
}

/** `status` of a NodeClaim. */
export interface NodeClaimStatus {
  /** Name of the Node that registered for this NodeClaim. */
  nodeName?: string;
  /** Cloud provider ID of the instance (e.g. `azure:///subscriptions/...`, `aws:///us-west-2a/i-...`). */
  providerID?: string;
  /** Image the instance was launched from. */
  imageID?: string;
  /** Instance capacity (quantities). */
  capacity?: ResourceQuantities;
  /** Capacity minus reserved and eviction threshold (quantities). */
  allocatable?: ResourceQuantities;
  /** See {@link NodeClaimConditions}. */
  conditions?: StatusCondition[];
  /** Last time a pod was bound to or removed from the node (RFC 3339); feeds consolidateAfter. */
  lastPodEventTime?: string;
}

/** A `karpenter.sh/v1` NodeClaim object. */
export interface NodeClaim {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodeClaim';
  metadata: ObjectMeta;
  spec: NodeClaimSpec;
  status?: NodeClaimStatus;
}

/**
 * NodeClaim condition types used by current upstream. Root `Ready` = Launched ∧ Registered ∧
 * Initialized. (There is no `Empty`/`Expired` condition in v1.)
 */
export const NodeClaimConditions = {
  Ready: 'Ready',
  Launched: 'Launched',
  Registered: 'Registered',
  Initialized: 'Initialized',
  Consolidatable: 'Consolidatable',
  Drifted: 'Drifted',
  Drained: 'Drained',
  VolumesDetached: 'VolumesDetached',
  InstanceTerminating: 'InstanceTerminating',
  ConsistentStateFound: 'ConsistentStateFound',
  DisruptionReason: 'DisruptionReason',
} as const;

/** One of {@link NodeClaimConditions}. */
export type NodeClaimConditionType = (typeof NodeClaimConditions)[keyof typeof NodeClaimConditions];
