/**
 * Typed errors of the cloud provider contract (upstream pkg/cloudprovider/types.go). Controllers
 * branch on these classes: a NodeClaim whose
 * launch raised InsufficientCapacityError or NodeClassNotReadyError is deleted and its pods
 * rescheduled; NodeClaimNotFoundError from `delete`/`get` means the instance is gone.
 *
 * Every error carries the underlying `cause` (ES2022 `Error.cause`) when there is one.
 */

/** Options shared by every cloud provider error. */
export interface CloudProviderErrorOptions {
  /** The error that led to this one (an SDK error, a validation failure, ...). */
  readonly cause?: unknown;
}

/** Base class of the cloud provider errors, so callers can catch them as a family. */
export class CloudProviderError extends Error {
  constructor(message: string, options: CloudProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/**
 * The instance behind a NodeClaim (or provider ID) no longer exists. `delete` raises it once the
 * machine is gone (upstream: the termination controller keeps calling Delete every 5 s until it
 * sees this), and `get` raises it for unknown provider IDs.
 */
export class NodeClaimNotFoundError extends CloudProviderError {
  /** The provider ID or NodeClaim name that was not found. */
  readonly id: string;
  constructor(id: string, options: CloudProviderErrorOptions & { message?: string } = {}) {
    super(options.message ?? `node claim ${id} not found`, options);
    this.id = id;
  }
}

/**
 * The cloud could not launch any of the NodeClaim's instance-type options: every compatible
 * offering is sold out, unavailable, or none fits. Upstream deletes the NodeClaim so the pods are
 * scheduled again against the (now updated) offerings.
 */
export class InsufficientCapacityError extends CloudProviderError {
  /** The offerings that were tried and reported no capacity (may be empty). */
  readonly offerings: readonly OfferingKey[];
  constructor(
    message: string,
    options: CloudProviderErrorOptions & { offerings?: readonly OfferingKey[] } = {},
  ) {
    super(message, options);
    this.offerings = options.offerings ?? [];
  }
}

/**
 * The NodeClaim's NodeClass exists but is not Ready (or its readiness is for an older
 * generation). Upstream deletes the NodeClaim and waits for the NodeClass to become Ready.
 */
export class NodeClassNotReadyError extends CloudProviderError {
  /** `metadata.name` of the NodeClass. */
  readonly nodeClassName: string;
  constructor(
    nodeClassName: string,
    options: CloudProviderErrorOptions & { message?: string } = {},
  ) {
    super(options.message ?? `node class ${nodeClassName} is not ready`, options);
    this.nodeClassName = nodeClassName;
  }
}

/**
 * Any other launch failure, with a short machine-readable `reason` (upstream `CreateError`
 * carries a condition reason and message that land on the NodeClaim's `Launched` condition).
 */
export class CreateError extends CloudProviderError {
  /** CamelCase reason for the NodeClaim `Launched=False` condition, e.g. `LaunchFailed`. */
  readonly reason: string;
  constructor(reason: string, message: string, options: CloudProviderErrorOptions = {}) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * The NodeOverlay evaluation has not yet covered this NodePool (upstream
 * `UnevaluatedNodePoolError`): with the `NodeOverlay` gate on, its instance types are not known
 * until the overlay controller has evaluated every overlay against it, so the provisioner and
 * disruption leave the pool out until then rather than launch at un-overlaid prices.
 */
export class UnevaluatedNodePoolError extends CloudProviderError {
  /** `metadata.name` of the NodePool. */
  readonly nodePoolName: string;
  constructor(nodePoolName: string, options: CloudProviderErrorOptions = {}) {
    super(`nodepool ${JSON.stringify(nodePoolName)} is awaiting NodeOverlay evaluation`, options);
    this.nodePoolName = nodePoolName;
  }
}

/** Identifies one offering of one instance type: the unit the cloud reports capacity errors for. */
export interface OfferingKey {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: string;
}

/** True when `err` is a {@link NodeClaimNotFoundError}. */
export function isNodeClaimNotFoundError(err: unknown): err is NodeClaimNotFoundError {
  return err instanceof NodeClaimNotFoundError;
}

/** True when `err` is an {@link InsufficientCapacityError}. */
export function isInsufficientCapacityError(err: unknown): err is InsufficientCapacityError {
  return err instanceof InsufficientCapacityError;
}

/** True when `err` is a {@link NodeClassNotReadyError}. */
export function isNodeClassNotReadyError(err: unknown): err is NodeClassNotReadyError {
  return err instanceof NodeClassNotReadyError;
}

/** True when `err` is a {@link CreateError}. */
export function isCreateError(err: unknown): err is CreateError {
  return err instanceof CreateError;
}

/** True when `err` is an {@link UnevaluatedNodePoolError}. */
export function isUnevaluatedNodePoolError(err: unknown): err is UnevaluatedNodePoolError {
  return err instanceof UnevaluatedNodePoolError;
}
