/**
 * Cluster Autoscaler's published defaults that the baseline model follows (its FAQ and flag
 * reference): the scan interval, the scale-down rules (unready nodes included), the node
 * provision time and the node group backoff.
 */

/** `--scan-interval`: seconds between autoscaler loops. */
export const SCAN_INTERVAL_SECONDS = 10;
/** `--scale-down-utilization-threshold`: a node below it (max of cpu and memory requested ÷ allocatable) may be removed. */
export const SCALE_DOWN_UTILIZATION_THRESHOLD = 0.5;
/** `--scale-down-unneeded-time`: seconds a node must stay unneeded before it is removed. */
export const SCALE_DOWN_UNNEEDED_SECONDS = 600;
/** `--scale-down-unready-time`: seconds an unready node must stay unneeded before it is removed. */
export const SCALE_DOWN_UNREADY_SECONDS = 1200;
/**
 * `--max-node-provision-time`: seconds a launched machine may take to register its Node; past it
 * CA deletes the machine and treats the scale-up as failed (the group is backed off).
 */
export const MAX_NODE_PROVISION_SECONDS = 900;
/** `--scale-down-delay-after-add`: seconds after a scale-up during which nothing is removed. */
export const SCALE_DOWN_DELAY_AFTER_ADD_SECONDS = 600;
/** `--scale-down-delay-after-failure`: seconds after a failed scale-down during which nothing is removed. */
export const SCALE_DOWN_DELAY_AFTER_FAILURE_SECONDS = 180;
/** `--max-empty-bulk-delete`: empty nodes removed at once. */
export const MAX_EMPTY_BULK_DELETE = 10;
/** `--max-drain-parallelism`: non-empty nodes drained at once. */
export const MAX_DRAIN_PARALLELISM = 1;
/** `--max-pod-eviction-time`: seconds a drain keeps retrying evictions (a PDB refusing them) before the scale-down fails. */
export const MAX_POD_EVICTION_SECONDS = 120;
/** `--initial-node-group-backoff-duration`: seconds a node group is skipped after a failed scale-up. */
export const INITIAL_NODE_GROUP_BACKOFF_SECONDS = 300;
/** `--max-node-group-backoff-duration`: the longest backoff (each further failure doubles it). */
export const MAX_NODE_GROUP_BACKOFF_SECONDS = 1800;
/** Size limit of a node group whose NodePool sets no cpu limit (CA needs one per group). */
export const DEFAULT_MAX_GROUP_SIZE = 1000;

/** The pod annotation that allows (`"true"`) or forbids (`"false"`) evicting a pod to remove its node. */
export const SAFE_TO_EVICT_ANNOTATION = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
/** The node annotation that keeps a node from scale-down. */
export const SCALE_DOWN_DISABLED_ANNOTATION =
  'cluster-autoscaler.kubernetes.io/scale-down-disabled';
/** The taint CA puts on a node it is removing. */
export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';
/** The label the simulator puts on a node group's nodes (its name). */
export const NODE_GROUP_LABEL = 'sim.karpenter-ts.io/node-group';
/** The finalizer the simulator puts on a node group's machine records, so a deletion (a spot interruption) is seen and drained. */
export const MACHINE_FINALIZER = 'sim.karpenter-ts.io/node-group-machine';
