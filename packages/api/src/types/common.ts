/**
 * Building blocks shared by NodePool, NodeClaim and NodeOverlay (`karpenter.sh`).
 */
import type { Taint } from './core.js';

/**
 * Node selector operators Karpenter accepts in requirements. `Gte`/`Lte` are Karpenter
 * additions to the Kubernetes set (`In, NotIn, Exists, DoesNotExist, Gt, Lt`).
 */
export type NodeSelectorOperator =
  'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';

/** Every operator in {@link NodeSelectorOperator}, in upstream's enum order. */
export const NodeSelectorOperators: readonly NodeSelectorOperator[] = [
  'In',
  'NotIn',
  'Exists',
  'DoesNotExist',
  'Gt',
  'Lt',
  'Gte',
  'Lte',
];

/**
 * A node selector requirement with an optional `minValues` (upstream
 * `NodeSelectorRequirementWithMinValues`). `values` holds label values; for `Gt/Lt/Gte/Lte`
 * exactly one non-negative integer string. `minValues` (1..50, alpha) asks the scheduler to keep
 * at least that many distinct values of `key` among a NodeClaim's instance-type options.
 */
export interface NodeSelectorRequirementWithMinValues {
  key: string;
  operator: NodeSelectorOperator;
  values?: string[];
  minValues?: number;
}

/**
 * Reference to the provider's NodeClass object, e.g.
 * `{group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default'}`. All three non-empty;
 * `group` has no `/`. On a NodePool, group and kind are immutable.
 */
export interface NodeClassReference {
  group: string;
  kind: string;
  name: string;
}

/**
 * A Go duration restricted to hours/minutes/seconds groups (`"30s"`, `"1h30m"`, `"720h"`),
 * as the CRD patterns accept. Fields that allow it also take the literal `"Never"`.
 */
export type Duration = string;

/** A {@link Duration} or the literal `Never` (no expiry / consolidation disabled). */
export type NillableDuration = Duration | 'Never';

/**
 * A Kubernetes resource quantity as a string (`"100"`, `"500m"`, `"16Gi"`) or a plain number, as
 * JSON allows for `int-or-string` quantity fields. Parsing lives in @karpenter-ts/scheduling.
 */
export type Quantity = string | number;

/** A resource name → quantity map (`cpu`, `memory`, `nodes`, extended resources). */
export type ResourceQuantities = Record<string, Quantity>;

/** Condition status values. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * A status condition as Karpenter's CRDs store it (awslabs operatorpkg `status.Condition`):
 * `type`, `status` and `lastTransitionTime` (RFC 3339 string) are required; `reason` may be empty
 * in the NodeClaim CRD. `observedGeneration` is the object generation the condition reflects.
 */
export interface StatusCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** Minimal object metadata carried inside a NodePool template (`spec.template.metadata`). */
export interface TemplateMetadata {
  /** Labels copied onto every NodeClaim and Node (atomic map). */
  labels?: Record<string, string>;
  /** Annotations copied onto every NodeClaim and Node (granular map). */
  annotations?: Record<string, string>;
}

/** Taint effects allowed on NodePool/NodeClaim taints and startupTaints. */
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

/**
 * The NodeClaim-shaped spec fields a NodePool template and a NodeClaim share.
 */
export interface NodeClaimTemplateFields {
  /** Taints applied to the node; pods must tolerate them to schedule. */
  taints?: Taint[];
  /** Taints present at registration and expected to be removed (e.g. by a CNI) before the node is Initialized. */
  startupTaints?: Taint[];
  /** Requirements (≤100) that constrain instance type, zone, capacity type, and custom labels. */
  requirements: NodeSelectorRequirementWithMinValues[];
  /** The provider NodeClass. */
  nodeClassRef: NodeClassReference;
  /** Max time to wait for drain once deletion starts; unset ⇒ wait forever. No `Never`. */
  terminationGracePeriod?: Duration;
  /** Lifetime after which the node is expired and replaced; default `720h`; `Never` disables. */
  expireAfter?: NillableDuration;
}
