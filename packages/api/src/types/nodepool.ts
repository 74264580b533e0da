/**
 * `karpenter.sh/v1` NodePool: a template for NodeClaims plus the disruption and limit policy
 * that governs the nodes made from it. Cluster-scoped; status and scale subresources.
 */
import type { ObjectMeta } from './core.js';
import type {
  Duration,
  NillableDuration,
  NodeClaimTemplateFields,
  ResourceQuantities,
  StatusCondition,
  TemplateMetadata,
} from './common.js';

/** API group of NodePool, NodeClaim and NodeOverlay. */
export const KarpenterGroup = 'karpenter.sh';
/** `apiVersion` of NodePool and NodeClaim. */
export const KarpenterV1 = 'karpenter.sh/v1';

/** Consolidation policies (`spec.disruption.consolidationPolicy`). */
export type ConsolidationPolicy = 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';

/** Disruption reasons a budget may be limited to. */
export type DisruptionReason = 'Underutilized' | 'Empty' | 'Drifted';

/**
 * A disruption budget: at most `nodes` of the pool's nodes may be voluntarily disrupted at once
 * (for the listed `reasons`, or all reasons when absent), during the window that starts at each
 * `schedule` tick (UTC cron) and lasts `duration`; without schedule/duration it is always active.
 */
export interface Budget {
  /** Non-negative integer (`"5"`) or percentage 0–100 (`"10%"`) of the pool's nodes. Default `10%`. */
  nodes: string;
  /** Cron (5 fields or `@daily`-style macro), evaluated in UTC. Set together with `duration`. */
  schedule?: string;
  /** Window length; hours and minutes only (`"1h30m"`, optional trailing `0s`). Set together with `schedule`. */
  duration?: Duration;
  /** Reasons this budget limits; absent ⇒ all reasons. A set, ≤50 entries. */
  reasons?: DisruptionReason[];
}

/** `spec.disruption` of a NodePool. */
export interface Disruption {
  /** Time after a node last changed pods before consolidation may consider it; default `0s`; `Never` disables. */
  consolidateAfter?: NillableDuration;
  /** Which nodes consolidation may remove or replace; default `WhenEmptyOrUnderutilized`. */
  consolidationPolicy?: ConsolidationPolicy;
  /** Disruption budgets (≤50, atomic list); default `[{nodes: "10%"}]`. */
  budgets?: Budget[];
}

/** The NodeClaim template inside a NodePool (`spec.template`). */
export interface NodeClaimTemplate {
  metadata?: TemplateMetadata;
  spec: NodeClaimTemplateFields;
}

/** `spec` of a NodePool. */
export interface NodePoolSpec {
  /** The template every NodeClaim of this pool is made from. */
  template: NodeClaimTemplate;
  /** Disruption policy; defaulted by the CRD to `{consolidateAfter: 0s, consolidationPolicy: WhenEmptyOrUnderutilized, budgets: [{nodes: 10%}]}`. */
  disruption?: Disruption;
  /** Resource ceilings for the pool (`cpu`, `memory`, `nodes`, extended resources) as quantities. */
  limits?: ResourceQuantities;
  /** Priority 1..100 among pools (higher first); unset counts as 0. Forbidden with `replicas`. */
  weight?: number;
  /** Static pool size (alpha, gate StaticCapacity). ≥0; cannot be added or removed on update. */
  replicas?: number;
}

/** `status` of a NodePool. */
export interface NodePoolStatus {
  /** Sum of the capacities of the pool's non-deleting nodes, plus `nodes` (quantities). */
  resources?: ResourceQuantities;
  /** Number of nodes in the pool (scale subresource `statusReplicasPath`); default 0. */
  nodes?: number;
  /** Generation of the NodeClass the pool's readiness last reflected. */
  nodeClassObservedGeneration?: number;
  /** `ValidationSucceeded`, `NodeClassReady`, `NodeRegistrationHealthy`, root `Ready`. */
  conditions?: StatusCondition[];
}

/** A `karpenter.sh/v1` NodePool object. */
export interface NodePool {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodePool';
  metadata: ObjectMeta;
  spec: NodePoolSpec;
  status?: NodePoolStatus;
}

/** NodePool condition types. */
export const NodePoolConditions = {
  Ready: 'Ready',
  ValidationSucceeded: 'ValidationSucceeded',
  NodeClassReady: 'NodeClassReady',
  NodeRegistrationHealthy: 'NodeRegistrationHealthy',
} as const;
