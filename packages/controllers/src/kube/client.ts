/**
 * The small Kubernetes client the controllers are written against. packages/kube implements it
 * over @kubernetes/client-node (informer caches for reads, REST for writes); `MemoryKubeClient`
 * implements it in memory for unit tests and the simulator.
 *
 * Semantics every implementation keeps (they are the API server's):
 * - Reads (`get`, `list`) come from a watch cache and may lag writes; they return deep copies.
 * - `update` and `updateStatus` are optimistic: when the object carries `metadata.resourceVersion`
 *   and the stored one differs, they raise {@link ConflictError}; the caller re-reads and retries
 *   (our reconcilers simply requeue). `update` never changes `status`; `updateStatus` changes only
 *   `status`.
 * - `delete` of an object with finalizers only sets `metadata.deletionTimestamp`; the object goes
 *   away when an update removes its last finalizer. Finalizers cannot be added once deleting.
 * - `evict` is the policy/v1 Eviction subresource: it raises {@link TooManyRequestsError} (429)
 *   when a PodDisruptionBudget allows no disruption, and {@link KubeApiError} with code 500 when
 *   more than one budget selects the pod.
 * - Missing objects raise {@link NotFoundError} (404) from writes; `get` returns `undefined`.
 */
import type {
  CSINode,
  DaemonSet,
  LimitRange,
  Node,
  NodeClaim,
  NodeClassReference,
  NodeOverlay,
  NodePool,
  ObjectMeta,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  StatusCondition,
  StorageClass,
} from '@karpenter-ts/api';

/**
 * A provider NodeClass object (`AKSNodeClass`, `EC2NodeClass`, ...) as the controllers read it:
 * only its identity and `status.conditions` (for readiness) matter here.
 */
export interface NodeClassObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: { conditions?: StatusCondition[]; [key: string]: unknown };
}

/** The object kinds the controllers read and write, by kind name. */
export interface KubeObjects {
  Pod: Pod;
  Node: Node;
  DaemonSet: DaemonSet;
  PodDisruptionBudget: PodDisruptionBudget;
  NodePool: NodePool;
  NodeClaim: NodeClaim;
  NodeClass: NodeClassObject;
  /** `karpenter.sh/v1alpha1` (gate NodeOverlay). */
  NodeOverlay: NodeOverlay;
  /** Namespace defaults of container requests and limits (DaemonSet pods built from templates). */
  LimitRange: LimitRange;
  /** Volume topology and attach limits (provisioning). */
  PersistentVolumeClaim: PersistentVolumeClaim;
  PersistentVolume: PersistentVolume;
  StorageClass: StorageClass;
  /** Per-node CSI attach limits (`spec.drivers[].allocatable.count`). */
  CSINode: CSINode;
}

/** One of the kinds in {@link KubeObjects}. */
export type Kind = keyof KubeObjects;

/** Kinds that live in a namespace; the others are cluster-scoped. */
export const NamespacedKinds: ReadonlySet<Kind> = new Set([
  'Pod',
  'DaemonSet',
  'PodDisruptionBudget',
  'LimitRange',
  'PersistentVolumeClaim',
]);

/**
 * Identifies one object. `namespace` is required for namespaced kinds and ignored otherwise.
 * For `NodeClass`, `group` and `kind` pick which NodeClass kind (the name alone is ambiguous).
 */
export interface ObjectKey {
  readonly name: string;
  readonly namespace?: string;
  readonly nodeClass?: Pick<NodeClassReference, 'group' | 'kind'>;
}

/** Filters of {@link KubeClient.list}; all given filters must match. */
export interface ListOptions {
  /** Only objects in this namespace (namespaced kinds). */
  readonly namespace?: string;
  /** Only objects carrying every one of these labels with these values. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Pods: only those bound to this node (`spec.nodeName`), the field selector kubelets use; `''`
   * selects the unbound pods, as the field selector `spec.nodeName=` does (an absent field reads
   * as empty).
   */
  readonly nodeName?: string;
  /** Nodes and NodeClaims: only those with this provider ID (`spec.providerID` / `status.providerID`). */
  readonly providerID?: string;
}

/** The fields of an object {@link matchesListOptions} reads, whatever its kind. */
export interface ListedObject {
  readonly metadata?:
    | {
        readonly namespace?: string | undefined;
        readonly labels?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
}

/**
 * Whether an object of `kind` passes `options`, for clients that filter lists themselves (the
 * in-memory client; the cluster client's informer caches). `nodeName` matches only Pods and
 * `providerID` only Nodes (`spec.providerID`) and NodeClaims (`status.providerID`): other kinds
 * never match when those are set. Labels match by equality, every one required.
 */
export function matchesListOptions(
  kind: Kind,
  object: ListedObject,
  options: ListOptions,
): boolean {
  const meta = object.metadata ?? {};
  if (options.namespace !== undefined && meta.namespace !== options.namespace) return false;
  if (options.labels !== undefined) {
    const labels = meta.labels ?? {};
    for (const [k, v] of Object.entries(options.labels)) if (labels[k] !== v) return false;
  }
  if (options.nodeName !== undefined) {
    if (kind !== 'Pod' || ((object as Pod).spec?.nodeName ?? '') !== options.nodeName) return false;
  }
  if (options.providerID !== undefined) {
    const id =
      kind === 'Node'
        ? (object as Node).spec?.providerID
        : kind === 'NodeClaim'
          ? (object as NodeClaim).status?.providerID
          : undefined;
    if (id !== options.providerID) return false;
  }
  return true;
}

/** Options of {@link KubeClient.delete}. */
export interface DeleteOptions {
  /** Pods: seconds the kubelet gives the containers; 0 forces immediate removal. */
  readonly gracePeriodSeconds?: number;
  /** Delete only if the stored object still has this UID (else ConflictError). */
  readonly uid?: string;
}

/**
 * A JSON merge patch (RFC 7386) of `metadata` and `spec`: objects merge key by key, `null`
 * removes a key, arrays (taints, finalizers) are replaced whole.
 */
export type MergePatch = Readonly<Record<string, unknown>>;

/** Options of {@link KubeClient.patch}. */
export interface PatchOptions {
  /** Optimistic lock: apply only if the stored resourceVersion is this one (else ConflictError). */
  readonly resourceVersion?: string;
}

/** Options of {@link KubeClient.evict}. */
export interface EvictOptions {
  /** Precondition: evict only the pod with this UID (else ConflictError, 409). */
  readonly uid?: string;
  /** Grace period passed to the pod deletion, seconds. */
  readonly gracePeriodSeconds?: number;
}

/** What changed, as a watch delivers it. */
export interface WatchEvent<K extends Kind> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /**
   * The object after the change (for DELETED, its last state). Read-only: the in-memory client
   * hands every watcher its frozen stored object.
   */
  readonly object: KubeObjects[K];
}

/** A core/v1 Event as the controllers emit it (deduplicated by the implementation). */
export interface KubeEvent {
  /** The object the event is about. */
  readonly involved: {
    readonly kind: Kind | string;
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
  };
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, e.g. `FailedScheduling`, `Nominated`, `InsufficientCapacityError`. */
  readonly reason: string;
  readonly message: string;
}

/**
 * The Kubernetes operations the controllers need. All methods are async; errors are the
 * {@link KubeApiError} family below, never raw HTTP errors.
 */
export interface KubeClient {
  /** The object, or `undefined` when the cache holds none. */
  get<K extends Kind>(kind: K, key: ObjectKey): Promise<KubeObjects[K] | undefined>;
  /** Objects of a kind matching the options (for NodeClass: of every NodeClass kind). */
  list<K extends Kind>(kind: K, options?: ListOptions): Promise<KubeObjects[K][]>;
  /**
   * Optional: the cached objects matching the options, shared rather than copied, for readers
   * that never change them (frozen where the client stores them so); a client without it is
   * read through `list`. The same unchanged object comes back on every call until it is written.
   */
  view?<K extends Kind>(kind: K, options?: ListOptions): readonly KubeObjects[K][];
  /**
   * Creates the object; `metadata.generateName` without a name gets a random suffix. Sets uid,
   * resourceVersion, generation and creationTimestamp. Raises AlreadyExistsError.
   */
  create<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]>;
  /** Replaces metadata and spec (not status). Raises ConflictError, NotFoundError. */
  update<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]>;
  /**
   * Applies a JSON merge patch to metadata and spec (never status), as kubectl and controllers do
   * for labels and taints that other actors also write. Raises NotFoundError, and ConflictError
   * when `options.resourceVersion` is given and stale.
   */
  patch<K extends Kind>(
    kind: K,
    key: ObjectKey,
    patch: MergePatch,
    options?: PatchOptions,
  ): Promise<KubeObjects[K]>;
  /** Replaces status only (the status subresource). Raises ConflictError, NotFoundError. */
  updateStatus<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]>;
  /**
   * Deletes, or with finalizers present marks the object deleting. Deleting an already deleting
   * object is a no-op. Raises NotFoundError, ConflictError (uid precondition).
   */
  delete<K extends Kind>(kind: K, key: ObjectKey, options?: DeleteOptions): Promise<void>;
  /**
   * Evicts a pod through the Eviction API. Raises TooManyRequestsError when a PDB blocks it,
   * KubeApiError(500) when several PDBs select it, NotFoundError, ConflictError (uid).
   */
  evict(pod: ObjectKey, options?: EvictOptions): Promise<void>;
  /**
   * Subscribes to changes of a kind made from now on; returns the unsubscribe function. Objects
   * that already exist are not replayed: list them after subscribing (an object changed in
   * between is then seen twice, never missed).
   */
  watch<K extends Kind>(kind: K, handler: (event: WatchEvent<K>) => void): () => void;
  /** Records an Event; never raises (events are best effort). */
  recordEvent(event: KubeEvent): void;
}

/** Base of the API errors; `code` is the HTTP status the API server would return. */
export class KubeApiError extends Error {
  readonly code: number;
  constructor(code: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** 404: the object does not exist. */
export class NotFoundError extends KubeApiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(404, message, options);
  }
}

/** 409: the object changed since it was read (resourceVersion or uid precondition failed). */
export class ConflictError extends KubeApiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(409, message, options);
  }
}

/** 409: an object with that name already exists. */
export class AlreadyExistsError extends KubeApiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(409, message, options);
  }
}

/** 429: the eviction would violate a PodDisruptionBudget; retry later. */
export class TooManyRequestsError extends KubeApiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(429, message, options);
  }
}

/** True for {@link NotFoundError}. */
export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}

/** True for {@link ConflictError} (not AlreadyExists). */
export function isConflict(err: unknown): err is ConflictError {
  return err instanceof ConflictError;
}

/** The key of an object of the given kind. */
export function keyOf(object: {
  metadata: ObjectMeta;
  apiVersion?: string;
  kind?: string;
}): ObjectKey {
  return {
    name: object.metadata.name ?? '',
    ...(object.metadata.namespace !== undefined ? { namespace: object.metadata.namespace } : {}),
  };
}
