/**
 * The inputs and results of the provisioning Scheduler.
 * Units: resource lists are canonical integers (cpu millicores, memory bytes, pods as counts);
 * prices USD per hour.
 */
import type { NodePool, Pod, Taint } from '@karpenter-ts/api';
import type { PodDataCache } from './pod-data-cache.js';
import type { PreferencePolicy } from './pod-constraints.js';
import type { Requirements } from './requirements.js';
import type { ResourceList } from './resources.js';
import type { PodVolumes } from './volumes.js';

/**
 * One way to buy an instance type, as the scheduler reads it. @karpenter-ts/cloudprovider's
 * `Offering` satisfies it structurally.
 */
export interface SchedulerOffering {
  /** Defines `karpenter.sh/capacity-type` and `topology.kubernetes.io/zone` as single values. */
  readonly requirements: Requirements;
  /** USD per hour. */
  readonly price: number;
  /** False when the offering cannot be bought now; unavailable offerings are never chosen. */
  readonly available: boolean;
  readonly zone: string;
  readonly capacityType: string;
}

/**
 * The minimal instance type the scheduler needs. @karpenter-ts/cloudprovider's `InstanceType`
 * satisfies it structurally (scheduling does not depend on cloudprovider).
 */
export interface SchedulerInstanceType {
  /** e.g. `Standard_D4s_v5`, `m5.large`. */
  readonly name: string;
  /** Labels every node of this type carries, as requirements (well-known keys always defined). */
  readonly requirements: Requirements;
  readonly offerings: readonly SchedulerOffering[];
  /** Raw capacity; NodePool limits are checked against it. */
  readonly capacity: ResourceList;
  /** Capacity minus kube/system reserved and eviction threshold; pods are packed against it. */
  allocatable(): ResourceList;
}

/**
 * A node already in the cluster that pods may be placed on. Taints are the ones that count for
 * scheduling (for an uninitialized managed node, without startup and ephemeral taints).
 */
export interface ExistingNodeInput {
  /** Node name; also its `kubernetes.io/hostname` unless the labels say otherwise. */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints?: readonly Taint[];
  /** Allocatable resources of the node. */
  readonly allocatable: ResourceList;
  /** Capacity, counted against its NodePool's limits (defaults to `allocatable`). */
  readonly capacity?: ResourceList;
  /** Pods bound to the node (DaemonSet pods included); their requests are already used. */
  readonly pods?: readonly Pod[];
  /** Name of the managing NodePool, when Karpenter manages the node. */
  readonly nodePoolName?: string;
  /** Initialized nodes are tried before uninitialized ones. Default true. */
  readonly initialized?: boolean;
  /**
   * CSI attach limits per driver (its CSINode's `spec.drivers[].allocatable.count`); drivers
   * left out are unlimited. Default: no limits.
   */
  readonly volumeLimits?: Readonly<Record<string, number>>;
}

/** How minValues behave when the instance types cannot meet them (upstream `MIN_VALUES_POLICY`). */
export type MinValuesPolicy = 'Strict' | 'BestEffort';

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  /** NodePools to launch from; weight order (desc, ties by name desc) decides which is tried first. */
  readonly nodePools: readonly NodePool[];
  /** Instance types per NodePool name; pools without an entry (or with none) are skipped. */
  readonly instanceTypes: ReadonlyMap<string, readonly IT[]>;
  /** Nodes pods may be placed on before any new node claim is opened. */
  readonly existingNodes?: readonly ExistingNodeInput[];
  /** One pod per DaemonSet (its newest pod, or one built from its template); their requests are daemonset overhead. */
  readonly daemonSetPods?: readonly Pod[];
  /** Which solver runs the numeric hot path. Default `wasm`. */
  readonly solver?: 'wasm' | 'ts';
  /** Default `Respect`. */
  readonly preferencePolicy?: PreferencePolicy;
  /** Default `Strict`. */
  readonly minValuesPolicy?: MinValuesPolicy;
  /** Instance-type options kept per new node claim (upstream `MaxInstanceTypes`). Default 600. */
  readonly maxInstanceTypes?: number;
  /** Namespace labels, for pod-affinity `namespaceSelector`s. */
  readonly namespaceLabels?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /**
   * The cloud provider's well-known labels (e.g. `karpenter.azure.com/sku-cpu`), added to
   * Karpenter's own: a pod may require them although its NodePool does not define them, and the
   * instance types then decide which values exist (upstream providers add theirs to
   * `v1.WellKnownLabels`). Default none: only Karpenter's well-known labels.
   */
  readonly wellKnownLabels?: Iterable<string>;
  /**
   * A pod's volumes (zones its PersistentVolumes or StorageClasses allow, CSI volumes it
   * attaches), resolved by the caller from PVCs, PVs and StorageClasses; read once per pod.
   * Default: volumes do not constrain placement.
   */
  readonly podVolumes?: (pod: Pod) => PodVolumes | undefined;
  /**
   * Per-pod data shared with the other Schedulers given the same cache (see PodDataCache), for a
   * caller that builds a Scheduler per pass over the same pod objects. Its preference policy must
   * be this scheduler's and its namespace labels are used (`namespaceLabels`, when given, must
   * be the cache's own object); raises Error otherwise. Default: data per Scheduler.
   */
  readonly podDataCache?: PodDataCache;
}

/** A node claim the scheduler wants launched. */
export interface NewNodeClaim<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  readonly nodePoolName: string;
  /**
   * Template requirements narrowed by the pods, plus `node.kubernetes.io/instance-type In` the
   * kept options and `karpenter.sh/capacity-type` narrowed to their compatible offerings.
   */
  readonly requirements: Requirements;
  /** Cheapest compatible offering first; at most `maxInstanceTypes`, keeping minValues. */
  readonly instanceTypeOptions: readonly IT[];
  readonly pods: readonly Pod[];
  /** Pod requests plus the smallest daemonset overhead among the options' daemon groups. */
  readonly requests: ResourceList;
  /** True when BestEffort lowered a minValues the options could not meet. */
  readonly minValuesRelaxed: boolean;
}

/** Pods placed onto an existing node. */
export interface ExistingNodePlacement {
  readonly name: string;
  readonly pods: readonly Pod[];
}

/** Options of one `Scheduler.solve`. */
export interface SolveOptions {
  /**
   * Names of existing nodes to leave out of this solve, as if the Scheduler had been built
   * without them (a consolidation simulation's candidates). Unknown names are ignored.
   */
  readonly without?: ReadonlySet<string>;
}

/** What one `solve` decided. */
export interface SchedulingResults<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  readonly newNodeClaims: readonly NewNodeClaim<IT>[];
  /** Existing nodes that received pods, in the scheduler's node order. */
  readonly existingNodes: readonly ExistingNodePlacement[];
  /** Pods that could not be scheduled, with a message naming the constraint and NodePool that failed. */
  readonly podErrors: ReadonlyMap<Pod, string>;
}
