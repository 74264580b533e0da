/**
 * Kubernetes core types, re-exported as type-only aliases of the `@kubernetes/client-node`
 * models so every karpenter-ts package names them the same way without importing the client at
 * runtime. Shapes are exactly the client's (camelCase JSON field names, optional fields optional).
 * Note: the client models `metav1.Time` fields (e.g. `Taint.timeAdded`,
 * `ObjectMeta.creationTimestamp`) as `Date`.
 */
import type {
  V1Affinity,
  V1Condition,
  V1Container,
  V1CSINode,
  V1DaemonSet,
  V1Deployment,
  V1LabelSelector,
  V1LabelSelectorRequirement,
  V1Lease,
  V1LimitRange,
  V1Namespace,
  V1Node,
  V1NodeAffinity,
  V1NodeSelector,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
  V1NodeSpec,
  V1NodeStatus,
  V1ObjectMeta,
  V1ObjectReference,
  V1OwnerReference,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodAffinity,
  V1PodAffinityTerm,
  V1PodAntiAffinity,
  V1PodCondition,
  V1PodDisruptionBudget,
  V1PodSpec,
  V1PodStatus,
  V1PodTemplateSpec,
  V1PreferredSchedulingTerm,
  V1ReplicaSet,
  V1ResourceRequirements,
  V1Service,
  V1StatefulSet,
  V1StorageClass,
  V1Taint,
  V1Toleration,
  V1TopologySpreadConstraint,
  V1Volume,
  V1WeightedPodAffinityTerm,
} from '@kubernetes/client-node';

/** core/v1 Pod. */
export type Pod = V1Pod;
/** core/v1 PodSpec. */
export type PodSpec = V1PodSpec;
/** core/v1 PodStatus. */
export type PodStatus = V1PodStatus;
/** core/v1 PodCondition. */
export type PodCondition = V1PodCondition;
/** core/v1 PodTemplateSpec. */
export type PodTemplateSpec = V1PodTemplateSpec;
/** core/v1 Container. */
export type Container = V1Container;
/** core/v1 ResourceRequirements (requests/limits as quantity strings). */
export type ResourceRequirements = V1ResourceRequirements;
/** core/v1 Node. */
export type Node = V1Node;
/** core/v1 NodeSpec. */
export type NodeSpec = V1NodeSpec;
/** core/v1 NodeStatus. */
export type NodeStatus = V1NodeStatus;
/** core/v1 Taint: `{key, value?, effect, timeAdded?}`. */
export type Taint = V1Taint;
/** core/v1 Toleration. */
export type Toleration = V1Toleration;
/** core/v1 Affinity. */
export type Affinity = V1Affinity;
/** core/v1 NodeAffinity. */
export type NodeAffinity = V1NodeAffinity;
/** core/v1 PodAffinity. */
export type PodAffinity = V1PodAffinity;
/** core/v1 PodAntiAffinity. */
export type PodAntiAffinity = V1PodAntiAffinity;
/** core/v1 PodAffinityTerm. */
export type PodAffinityTerm = V1PodAffinityTerm;
/** core/v1 WeightedPodAffinityTerm. */
export type WeightedPodAffinityTerm = V1WeightedPodAffinityTerm;
/** core/v1 NodeSelector. */
export type NodeSelector = V1NodeSelector;
/** core/v1 NodeSelectorTerm. */
export type NodeSelectorTerm = V1NodeSelectorTerm;
/** core/v1 NodeSelectorRequirement: `{key, operator, values?}`. */
export type NodeSelectorRequirement = V1NodeSelectorRequirement;
/** core/v1 PreferredSchedulingTerm. */
export type PreferredSchedulingTerm = V1PreferredSchedulingTerm;
/** core/v1 TopologySpreadConstraint. */
export type TopologySpreadConstraint = V1TopologySpreadConstraint;
/** core/v1 Volume. */
export type Volume = V1Volume;
/** core/v1 PersistentVolume. */
export type PersistentVolume = V1PersistentVolume;
/** core/v1 PersistentVolumeClaim. */
export type PersistentVolumeClaim = V1PersistentVolumeClaim;
/** core/v1 Service. */
export type Service = V1Service;
/** core/v1 Namespace. */
export type Namespace = V1Namespace;
/** core/v1 ObjectReference. */
export type ObjectReference = V1ObjectReference;
/** apps/v1 DaemonSet. */
export type DaemonSet = V1DaemonSet;
/** apps/v1 Deployment. */
export type Deployment = V1Deployment;
/** apps/v1 ReplicaSet. */
export type ReplicaSet = V1ReplicaSet;
/** apps/v1 StatefulSet. */
export type StatefulSet = V1StatefulSet;
/** policy/v1 PodDisruptionBudget. */
export type PodDisruptionBudget = V1PodDisruptionBudget;
/** storage.k8s.io/v1 StorageClass. */
export type StorageClass = V1StorageClass;
/** storage.k8s.io/v1 CSINode. */
export type CSINode = V1CSINode;
/** core/v1 LimitRange (namespace defaults and bounds of container resources). */
export type LimitRange = V1LimitRange;
/** coordination.k8s.io/v1 Lease. */
export type Lease = V1Lease;
/** meta/v1 ObjectMeta. */
export type ObjectMeta = V1ObjectMeta;
/** meta/v1 OwnerReference. */
export type OwnerReference = V1OwnerReference;
/** meta/v1 LabelSelector. */
export type LabelSelector = V1LabelSelector;
/** meta/v1 LabelSelectorRequirement. */
export type LabelSelectorRequirement = V1LabelSelectorRequirement;
/** meta/v1 Condition (the client's shape; see {@link StatusCondition} for Karpenter's relaxed one). */
export type MetaCondition = V1Condition;
