/**
 * The cloud provider model of upstream Karpenter (kubernetes-sigs/karpenter
 * pkg/cloudprovider/types.go), in TypeScript.
 *
 * Units: resource lists are canonical integers (cpu in millicores, memory and storage in
 * bytes, pods and extended resources as counts); prices are USD per hour.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import type { Requirements, ResourceList } from '@karpenter-ts/scheduling';

/** Capacity types upstream knows (`karpenter.sh/capacity-type`). */
export type CapacityType = 'on-demand' | 'spot' | 'reserved';

/** One way to buy an instance type: a zone and capacity type at a price. */
export interface Offering {
  /** Must define `karpenter.sh/capacity-type` and `topology.kubernetes.io/zone` (single values); reserved offerings also the reservation-id key. */
  readonly requirements: Requirements;
  /** USD per hour. */
  readonly price: number;
  /** False when the cloud cannot currently sell it (ICE cache, no price, restricted). */
  readonly available: boolean;
  /** For `reserved` offerings: how many instances the reservation still holds. */
  readonly reservationCapacity?: number;
  /** Convenience copies of the two required single-valued requirements. */
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** True when a NodeOverlay set or adjusted {@link price} (upstream `IsPriceOverlaid`). */
  readonly priceOverlayApplied?: boolean;
}

/** What the node keeps for itself; allocatable = capacity − (kubeReserved + systemReserved + evictionThreshold). */
export interface InstanceTypeOverhead {
  readonly kubeReserved: ResourceList;
  readonly systemReserved: ResourceList;
  readonly evictionThreshold: ResourceList;
}

/** A machine shape a NodeClaim can launch as. */
export interface InstanceType {
  /** e.g. `Standard_D4s_v5`, `m5.large`. */
  readonly name: string;
  /** Defines every well-known label (possibly as DoesNotExist), like upstream. */
  readonly requirements: Requirements;
  /** All offerings, including unavailable ones (`available: false`). */
  readonly offerings: readonly Offering[];
  /** Raw capacity the kubelet reports (after the VM memory overhead the provider models). */
  readonly capacity: ResourceList;
  readonly overhead: InstanceTypeOverhead;
  /** capacity − overhead, floored at zero per resource (computed once). */
  allocatable(): ResourceList;
  /** True when a NodeOverlay added resources to {@link capacity} (upstream `IsCapacityOverlayApplied`). */
  readonly capacityOverlayApplied?: boolean;
}

/** A NodeClass kind this provider manages, e.g. `{group: 'karpenter.azure.com', kind: 'AKSNodeClass'}`. */
export interface NodeClassKind {
  readonly group: string;
  readonly kind: string;
}

/** A node condition that, held for `tolerationSeconds`, makes the node eligible for repair. */
export interface RepairPolicy {
  readonly conditionType: string;
  readonly conditionStatus: 'True' | 'False' | 'Unknown';
  /** Seconds. */
  readonly tolerationSeconds: number;
}

/**
 * What every cloud implements. Errors: `create` raises InsufficientCapacityError,
 * NodeClassNotReadyError or CreateError; `delete` and `get` raise NodeClaimNotFoundError once the
 * instance is gone (see errors.ts).
 */
export interface CloudProvider {
  /** Short provider name: `azure`, `aws`, `sim`. */
  readonly name: string;
  /** Launches a machine for the node claim; resolves with providerID, labels, capacity, allocatable filled in. */
  create(nodeClaim: NodeClaim): Promise<NodeClaim>;
  /** Starts termination; raises NodeClaimNotFoundError once the machine is gone. */
  delete(nodeClaim: NodeClaim): Promise<void>;
  /** The instance as a NodeClaim, as {@link list} reports it; raises NodeClaimNotFoundError. */
  get(providerID: string): Promise<NodeClaim>;
  /**
   * Every instance this provider launched for the cluster, as NodeClaims: `metadata.name` the
   * NodeClaim it was launched for, `status.providerID`, and `metadata.creationTimestamp` the
   * instance's creation time as the cloud records it (upstream's providers set it from the
   * instance's launch time), from which garbage collection measures an orphan's grace period,
   * so it holds across controller restarts. A provider that cannot tell leaves it unset.
   */
  list(): Promise<NodeClaim[]>;
  /** Every instance type for the NodePool, including unavailable offerings. */
  getInstanceTypes(nodePool: NodePool): Promise<InstanceType[]>;
  /** A drift reason, or '' when not drifted. */
  isDrifted(nodeClaim: NodeClaim): Promise<string>;
  repairPolicies(): readonly RepairPolicy[];
  /** The first entry is the default NodeClass kind. */
  getSupportedNodeClasses(): readonly NodeClassKind[];
}
