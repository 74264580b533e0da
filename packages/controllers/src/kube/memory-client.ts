/**
 * An in-memory {@link KubeClient} for unit tests and the simulator. It keeps the API server
 * semantics the controllers rely on: resourceVersion conflicts, generateName, finalizers that
 * hold deletion (deletionTimestamp), status as a subresource, and the Eviction API honoring
 * PodDisruptionBudgets (429). Watches are delivered synchronously after each write, so the
 * "cache" never lags: tests that need lag use {@link MemoryKubeClient.failNext}.
 *
 * Admission: a created Pod gets its namespace's LimitRange defaults (see limit-ranges.ts).
 *
 * Simplifications (on purpose): a deleted pod without finalizers disappears at once (no kubelet
 * grace period); PDB disruptions are computed live from the pods (and reported as
 * `status.disruptionsAllowed` on every read, as kube-controller-manager keeps it);
 * `update` may set a pod's `spec.nodeName` (binding, see {@link MemoryKubeClient.bind}).
 */
import type { LimitRange, ObjectMeta, Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import { compileLabelSelector } from '@karpenter-ts/scheduling';
import { systemClock, type Clock } from '../clock.js';
import { admitPodResources } from '../limit-ranges.js';
import {
  AlreadyExistsError,
  ConflictError,
  KubeApiError,
  matchesListOptions,
  NamespacedKinds,
  NotFoundError,
  TooManyRequestsError,
  type DeleteOptions,
  type EvictOptions,
  type Kind,
  type KubeClient,
  type KubeEvent,
  type KubeObjects,
  type ListOptions,
  type MergePatch,
  type ObjectKey,
  type PatchOptions,
  type WatchEvent,
} from './client.js';

/** A write operation that {@link MemoryKubeClient.failNext} can make fail. */
export type MemoryOperation = 'create' | 'update' | 'patch' | 'updateStatus' | 'delete' | 'evict';

interface Fault {
  readonly operation: MemoryOperation;
  readonly kind: Kind | undefined;
  readonly error: Error;
}

/** The stored form of every kind: metadata always present. */
interface AnyObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
}

/** The typed view of a stored object. */
function typed<K extends Kind>(object: AnyObject): KubeObjects[K] {
  return object as unknown as KubeObjects[K];
}

/** The stored view of a typed object (missing metadata becomes `{}`). */
function stored(object: KubeObjects[Kind]): AnyObject {
  const o = object as unknown as AnyObject;
  if (o.metadata === undefined) o.metadata = {};
  return o;
}

/** Options of {@link MemoryKubeClient}. */
export interface MemoryKubeClientOptions {
  /** Sets creationTimestamp and deletionTimestamp. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * Keep each distinct event (same involved object, type, reason and message) once, at the
   * place of its latest recording, as a cluster's event recorder aggregates repeats into one
   * Event with a count; default false (every recording listed, for tests that count repeats).
   * For long simulations: a pending backlog gets the same `FailedScheduling` event on every
   * provisioning pass, so listing every recording grows by passes × pending pods.
   */
  readonly distinctEvents?: boolean;
}

/** See the module comment. */
export class MemoryKubeClient implements KubeClient {
  readonly #clock: Clock;
  readonly #objects = new Map<Kind, Map<string, AnyObject>>();
  readonly #handlers = new Map<Kind, Set<(event: WatchEvent<Kind>) => void>>();
  #faults: Fault[] = [];
  #resourceVersion = 0;
  #uid = 0;
  /** Every recording, oldest first (without `distinctEvents`). */
  readonly #recorded: KubeEvent[] = [];
  /** With `distinctEvents`: events by what makes them the same event, latest recording last. */
  /** Distinct events by identity (see {@link #eventIds}), in the order of their latest recording. */
  readonly #distinct: Map<object, KubeEvent> | undefined;
  /** Involved object, type and reason, then message: the identity of a distinct event. */
  readonly #eventIds = new Map<string, Map<string, object>>();

  constructor(options: MemoryKubeClientOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#distinct = options.distinctEvents === true ? new Map() : undefined;
  }

  async get<K extends Kind>(kind: K, key: ObjectKey): Promise<KubeObjects[K] | undefined> {
    const found = this.#store(kind).get(storeKey(kind, key));
    return found === undefined ? undefined : this.#read(kind, found);
  }

  async list<K extends Kind>(kind: K, options: ListOptions = {}): Promise<KubeObjects[K][]> {
    const out: KubeObjects[K][] = [];
    for (const object of this.#store(kind).values()) {
      if (matchesListOptions(kind, object, options)) out.push(this.#read(kind, object));
    }
    return out;
  }

  /**
   * The stored objects of a kind that match `options`, without copying them: for readers that
   * only look (the simulation's stand-ins read every pod several times a tick, and copying them
   * was half the CPU of a large simulation). Stored objects are frozen, so a write through a
   * view raises TypeError, and every write stores a new object, so a view keeps showing what
   * was read. PodDisruptionBudgets are copied (their status is computed at read time, see
   * {@link MemoryKubeClient.list}).
   */
  view<K extends Kind>(kind: K, options: ListOptions = {}): readonly KubeObjects[K][] {
    const out: KubeObjects[K][] = [];
    for (const object of this.#store(kind).values()) {
      if (!matchesListOptions(kind, object, options)) continue;
      out.push(kind === 'PodDisruptionBudget' ? this.#read(kind, object) : typed<K>(object));
    }
    return out;
  }

  /**
   * The stored object of a kind and key without copying it (see {@link view}); undefined when
   * there is none. For PodDisruptionBudgets a copy (see {@link view}).
   */
  viewOne<K extends Kind>(kind: K, key: ObjectKey): KubeObjects[K] | undefined {
    const found = this.#store(kind).get(storeKey(kind, key));
    if (found === undefined) return undefined;
    return kind === 'PodDisruptionBudget' ? this.#read(kind, found) : typed<K>(found);
  }

  /**
   * A copy for a reader. A PodDisruptionBudget's `status.disruptionsAllowed` is computed at read
   * time from the pods, as kube-controller-manager's disruption controller keeps it in a cluster.
   */
  #read<K extends Kind>(kind: K, object: AnyObject): KubeObjects[K] {
    const copy = typed<K>(structuredClone(object));
    if (kind === 'PodDisruptionBudget') {
      const pdb = copy as unknown as PodDisruptionBudget;
      pdb.status = {
        currentHealthy: 0,
        desiredHealthy: 0,
        expectedPods: 0,
        ...(pdb.status ?? {}),
        disruptionsAllowed: this.disruptionsAllowed(pdb),
      };
    }
    return copy;
  }

  async create<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    this.#fault('create', kind);
    let copy = stored(structuredClone(object));
    if (kind === 'Pod') {
      // LimitRanger admission, as the API server runs it on every pod create.
      const ranges = [...this.#store('LimitRange').values()] as unknown as LimitRange[];
      if (ranges.length > 0) copy = stored(admitPodResources(copy as unknown as Pod, ranges));
    }
    const meta = copy.metadata;
    if (meta.deletionTimestamp !== undefined) {
      throw new KubeApiError(422, `${kind}: metadata.deletionTimestamp may not be set on create`);
    }
    if (!meta.name) {
      if (!meta.generateName) {
        throw new KubeApiError(422, `${kind}: metadata.name or metadata.generateName is required`);
      }
      meta.name = `${meta.generateName}${this.#suffix(kind, copy)}`;
    }
    if (NamespacedKinds.has(kind) && !meta.namespace) meta.namespace = 'default';
    const key = storeKey(kind, keyFor(kind, copy));
    if (this.#store(kind).has(key)) {
      throw new AlreadyExistsError(`${kind} ${displayKey(kind, copy)} already exists`);
    }
    meta.uid = `uid-${++this.#uid}`;
    meta.resourceVersion = this.#nextVersion();
    meta.generation = 1;
    meta.creationTimestamp = new Date(this.#clock.now());
    this.#store(kind).set(key, deepFreeze(copy));
    this.#notify(kind, 'ADDED', copy);
    return typed<K>(structuredClone(copy));
  }

  /**
   * Stores an object read from a cluster (a snapshot) as it was: its uid, creationTimestamp,
   * generation, deletionTimestamp (kept only while it has finalizers, as the API server would
   * have removed it otherwise) and status are kept; it gets a fresh resourceVersion, and a
   * namespaced kind without a namespace is put in `default`. Watchers see it ADDED. Raises
   * AlreadyExistsError, and KubeApiError (422) without `metadata.name`.
   */
  async restore<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    const copy = stored(structuredClone(object));
    const meta = copy.metadata;
    if (!meta.name) throw new KubeApiError(422, `${kind}: metadata.name is required`);
    if (NamespacedKinds.has(kind) && !meta.namespace) meta.namespace = 'default';
    const key = storeKey(kind, keyFor(kind, copy));
    if (this.#store(kind).has(key)) {
      throw new AlreadyExistsError(`${kind} ${displayKey(kind, copy)} already exists`);
    }
    meta.uid ??= `uid-${++this.#uid}`;
    meta.generation ??= 1;
    meta.creationTimestamp ??= new Date(this.#clock.now());
    if ((meta.finalizers ?? []).length === 0) delete meta.deletionTimestamp;
    meta.resourceVersion = this.#nextVersion();
    this.#store(kind).set(key, deepFreeze(copy));
    this.#notify(kind, 'ADDED', copy);
    return typed<K>(structuredClone(copy));
  }

  async update<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    this.#fault('update', kind);
    return this.#update(kind, object);
  }

  #update<K extends Kind>(kind: K, object: KubeObjects[K]): KubeObjects[K] {
    const current = this.#current(kind, object);
    const next = stored(structuredClone(object));
    const storedFinalizers = new Set(current.metadata.finalizers ?? []);
    if (
      current.metadata.deletionTimestamp !== undefined &&
      (next.metadata.finalizers ?? []).some((f) => !storedFinalizers.has(f))
    ) {
      throw new KubeApiError(
        422,
        `${kind} ${displayKey(kind, current)}: no new finalizers can be added while it is being deleted`,
      );
    }
    next.metadata = {
      ...next.metadata,
      uid: current.metadata.uid,
      name: current.metadata.name,
      creationTimestamp: current.metadata.creationTimestamp,
      generation:
        (current.metadata.generation ?? 1) +
        (JSON.stringify(specOf(next)) === JSON.stringify(specOf(current)) ? 0 : 1),
      resourceVersion: this.#nextVersion(),
    };
    if (current.metadata.namespace !== undefined)
      next.metadata.namespace = current.metadata.namespace;
    if (current.metadata.deletionTimestamp !== undefined) {
      next.metadata.deletionTimestamp = current.metadata.deletionTimestamp;
    } else delete next.metadata.deletionTimestamp;
    setStatus(next, current);
    return typed<K>(this.#commit(kind, next));
  }

  async patch<K extends Kind>(
    kind: K,
    key: ObjectKey,
    patch: MergePatch,
    options: PatchOptions = {},
  ): Promise<KubeObjects[K]> {
    this.#fault('patch', kind);
    const found = this.#store(kind).get(storeKey(kind, key));
    if (found === undefined) throw new NotFoundError(`${kind} ${formatKey(key)} not found`);
    if (
      options.resourceVersion !== undefined &&
      options.resourceVersion !== found.metadata.resourceVersion
    ) {
      throw new ConflictError(
        `Operation cannot be fulfilled on ${kind} ${formatKey(key)}: the object has been modified`,
      );
    }
    const { status: _ignored, ...rest } = patch as Record<string, unknown>;
    const merged = mergePatch(structuredClone(found), rest) as AnyObject;
    merged.metadata = {
      ...merged.metadata,
      resourceVersion: found.metadata.resourceVersion,
      ...(found.metadata.deletionTimestamp !== undefined
        ? { deletionTimestamp: found.metadata.deletionTimestamp }
        : {}),
    };
    if (found.status !== undefined) merged.status = structuredClone(found.status);
    return this.#update(kind, typed<K>(merged));
  }

  async updateStatus<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    this.#fault('updateStatus', kind);
    const next = structuredClone(this.#current(kind, object));
    setStatus(next, stored(object));
    next.metadata.resourceVersion = this.#nextVersion();
    return typed<K>(this.#commit(kind, next));
  }

  async delete<K extends Kind>(
    kind: K,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<void> {
    this.#fault('delete', kind);
    const k = storeKey(kind, key);
    const found = this.#store(kind).get(k);
    if (found === undefined) throw new NotFoundError(`${kind} ${formatKey(key)} not found`);
    if (options.uid !== undefined && options.uid !== found.metadata.uid) {
      throw new ConflictError(
        `${kind} ${formatKey(key)}: uid precondition failed (have ${found.metadata.uid}, want ${options.uid})`,
      );
    }
    if ((found.metadata.finalizers ?? []).length === 0) {
      this.#store(kind).delete(k);
      this.#notify(kind, 'DELETED', found);
      return;
    }
    if (found.metadata.deletionTimestamp !== undefined) return;
    const next = structuredClone(found);
    next.metadata.deletionTimestamp = new Date(this.#clock.now());
    if (options.gracePeriodSeconds !== undefined) {
      next.metadata.deletionGracePeriodSeconds = options.gracePeriodSeconds;
    }
    next.metadata.resourceVersion = this.#nextVersion();
    this.#store(kind).set(k, deepFreeze(next));
    this.#notify(kind, 'MODIFIED', next);
  }

  async evict(podKey: ObjectKey, options: EvictOptions = {}): Promise<void> {
    this.#fault('evict', 'Pod');
    const pod = this.#store('Pod').get(storeKey('Pod', podKey)) as unknown as Pod | undefined;
    if (pod?.metadata === undefined) throw new NotFoundError(`Pod ${formatKey(podKey)} not found`);
    if (options.uid !== undefined && options.uid !== pod.metadata.uid) {
      throw new ConflictError(`Pod ${formatKey(podKey)}: uid precondition failed`);
    }
    if (pod.metadata.deletionTimestamp !== undefined) return;
    // The API server skips budget checks for pods that are not running (Pending, Succeeded, Failed).
    if (pod.status?.phase === 'Running') {
      const budgets = (
        [...this.#store('PodDisruptionBudget').values()] as unknown as PodDisruptionBudget[]
      ).filter(
        (pdb) =>
          pdb.metadata?.namespace === pod.metadata?.namespace &&
          compileLabelSelector(pdb.spec?.selector).matches(pod.metadata?.labels ?? {}),
      );
      if (budgets.length > 1) {
        throw new KubeApiError(
          500,
          'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        );
      }
      const budget = budgets[0];
      if (budget !== undefined && this.disruptionsAllowed(budget) <= 0) {
        throw new TooManyRequestsError(
          `Cannot evict pod as it would violate the pod's disruption budget ${budget.metadata?.name}.`,
        );
      }
    }
    await this.delete(
      'Pod',
      podKey,
      options.gracePeriodSeconds === undefined
        ? {}
        : { gracePeriodSeconds: options.gracePeriodSeconds },
    );
  }

  watch<K extends Kind>(kind: K, handler: (event: WatchEvent<K>) => void): () => void {
    let set = this.#handlers.get(kind);
    if (set === undefined) {
      set = new Set();
      this.#handlers.set(kind, set);
    }
    const h = handler as unknown as (event: WatchEvent<Kind>) => void;
    set.add(h);
    return () => {
      set.delete(h);
    };
  }

  /**
   * The events recorded, oldest first: every recording, or with the `distinctEvents` option each
   * distinct event once, ordered by its latest recording (so an object's latest event of a
   * reason is the last one listed either way; a copy then).
   */
  get events(): readonly KubeEvent[] {
    return this.#distinct === undefined ? this.#recorded : [...this.#distinct.values()];
  }

  /** Records an event (see {@link events}). */
  recordEvent(event: KubeEvent): void {
    if (this.#distinct === undefined) {
      this.#recorded.push(event);
      return;
    }
    const i = event.involved;
    // The message is an inner key, not part of a concatenated one: a scheduling reason over
    // hundreds of NodePools is hundreds of KB, and a key string per pod would copy it per pod.
    const key = `${i.kind}\u0000${i.namespace ?? ''}\u0000${i.name}\u0000${i.uid ?? ''}\u0000${event.type}\u0000${event.reason}`;
    let byMessage = this.#eventIds.get(key);
    if (byMessage === undefined) this.#eventIds.set(key, (byMessage = new Map()));
    let id = byMessage.get(event.message);
    if (id === undefined) byMessage.set(event.message, (id = {}));
    this.#distinct.delete(id);
    this.#distinct.set(id, event);
  }

  /**
   * How many pods the budget lets go now, computed live: healthy (Running, not deleting) matching
   * pods minus the desired healthy count (`minAvailable`, or expected − `maxUnavailable`;
   * percentages of the expected count, rounded up as the disruption controller does). Expected
   * is the number of matching pods, or `status.expectedPods` when that is larger.
   */
  disruptionsAllowed(pdb: PodDisruptionBudget): number {
    const selector = compileLabelSelector(pdb.spec?.selector);
    const pods = ([...this.#store('Pod').values()] as unknown as Pod[]).filter(
      (p) =>
        p.metadata?.namespace === pdb.metadata?.namespace &&
        selector.matches(p.metadata?.labels ?? {}) &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed',
    );
    // The disruption controller takes the expected count from the workload's scale; without
    // workload controllers here, `status.expectedPods` stands in when set (a replica count that
    // stays put while evicted pods are gone and not yet replaced).
    const expected = Math.max(pods.length, pdb.status?.expectedPods ?? 0);
    const healthy = pods.filter(
      (p) => p.status?.phase === 'Running' && p.metadata?.deletionTimestamp === undefined,
    ).length;
    const spec = pdb.spec ?? {};
    let desired = 0;
    if (spec.minAvailable !== undefined) desired = scaled(spec.minAvailable, expected);
    else if (spec.maxUnavailable !== undefined)
      desired = Math.max(0, expected - scaled(spec.maxUnavailable, expected));
    return Math.max(0, healthy - desired);
  }

  /** Binds a pod to a node (what kube-scheduler does through the binding subresource). */
  async bind(pod: ObjectKey, nodeName: string): Promise<Pod> {
    const found = this.#store('Pod').get(storeKey('Pod', pod)) as unknown as Pod | undefined;
    if (found === undefined) throw new NotFoundError(`Pod ${formatKey(pod)} not found`);
    if (found.spec?.nodeName) {
      throw new ConflictError(`Pod ${formatKey(pod)} is already bound to ${found.spec.nodeName}`);
    }
    const next = structuredClone(found);
    next.spec = { ...(next.spec ?? { containers: [] }), nodeName };
    next.status = {
      ...(next.status ?? {}),
      phase: 'Running',
      conditions: [
        ...(next.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
        { type: 'PodScheduled', status: 'True' },
      ],
    };
    next.metadata = { ...(next.metadata ?? {}), resourceVersion: this.#nextVersion() };
    return typed<'Pod'>(this.#commit('Pod', stored(next)));
  }

  /**
   * Makes the next `operation` (on `kind`, or any kind when omitted) raise `error` instead of
   * writing: how tests model a crash or an API server failure between two steps.
   */
  failNext(operation: MemoryOperation, error: Error, kind?: Kind): void {
    this.#faults.push({ operation, kind, error });
  }

  #fault(operation: MemoryOperation, kind: Kind): void {
    const i = this.#faults.findIndex(
      (f) => f.operation === operation && (f.kind === undefined || f.kind === kind),
    );
    if (i < 0) return;
    const [fault] = this.#faults.splice(i, 1);
    throw (fault as Fault).error;
  }

  #current(kind: Kind, typedObject: KubeObjects[Kind]): AnyObject {
    const object = stored(typedObject);
    const found = this.#store(kind).get(storeKey(kind, keyFor(kind, object)));
    if (found === undefined) {
      throw new NotFoundError(`${kind} ${displayKey(kind, object)} not found`);
    }
    const rv = object.metadata.resourceVersion;
    if (rv !== undefined && rv !== found.metadata.resourceVersion) {
      throw new ConflictError(
        `Operation cannot be fulfilled on ${kind} ${displayKey(kind, object)}: the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    if (object.metadata.uid !== undefined && object.metadata.uid !== found.metadata.uid) {
      throw new ConflictError(`${kind} ${displayKey(kind, object)}: uid mismatch`);
    }
    return found;
  }

  #commit(kind: Kind, next: AnyObject): AnyObject {
    const key = storeKey(kind, keyFor(kind, next));
    if (
      next.metadata.deletionTimestamp !== undefined &&
      (next.metadata.finalizers ?? []).length === 0
    ) {
      this.#store(kind).delete(key);
      this.#notify(kind, 'DELETED', next);
      return structuredClone(next);
    }
    this.#store(kind).set(key, deepFreeze(next));
    this.#notify(kind, 'MODIFIED', next);
    return structuredClone(next);
  }

  /**
   * Hands every watcher of `kind` the object as stored: frozen, so a watcher that changed it
   * would raise TypeError instead of changing the store (a copy per watcher and write was 7 %
   * of a simulation of thousands of nodes).
   */
  #notify(kind: Kind, type: WatchEvent<Kind>['type'], object: AnyObject): void {
    const handlers = this.#handlers.get(kind);
    if (handlers === undefined || handlers.size === 0) return;
    const frozen = typed(deepFreeze(object));
    for (const handler of handlers) handler({ type, object: frozen });
  }

  #store(kind: Kind): Map<string, AnyObject> {
    let m = this.#objects.get(kind);
    if (m === undefined) {
      m = new Map();
      this.#objects.set(kind, m);
    }
    return m;
  }

  #nextVersion(): string {
    return String(++this.#resourceVersion);
  }

  /** A 5-character suffix unique within the kind (deterministic, so simulations replay). */
  #suffix(kind: Kind, object: AnyObject): string {
    for (let attempt = 0; ; attempt++) {
      const n = this.#uid + 1 + attempt;
      const suffix = ((n * 2654435761) % 60466176).toString(36).padStart(5, '0');
      const candidate = {
        ...object,
        metadata: { ...object.metadata, name: `${object.metadata.generateName}${suffix}` },
      };
      if (!this.#store(kind).has(storeKey(kind, keyFor(kind, candidate as AnyObject))))
        return suffix;
    }
  }
}

/**
 * Freezes a stored object and everything in it, so the objects {@link MemoryKubeClient.view}
 * hands out cannot be changed behind the store's back. Returns `object`.
 */
function deepFreeze<T>(object: T): T {
  if (object !== null && typeof object === 'object' && !Object.isFrozen(object)) {
    Object.freeze(object);
    for (const value of Object.values(object)) deepFreeze(value);
  }
  return object;
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (
    patch === null ||
    typeof patch !== 'object' ||
    Array.isArray(patch) ||
    patch instanceof Date
  ) {
    return structuredClone(patch);
  }
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function specOf(object: AnyObject): unknown {
  return object.spec;
}

/** Copies `status` (or its absence) from `from` onto `to`. */
function setStatus(to: AnyObject, from: AnyObject): void {
  if (from.status === undefined) delete to.status;
  else to.status = structuredClone(from.status);
}

function keyFor(
  kind: Kind,
  object: { metadata: ObjectMeta; apiVersion?: string; kind?: string },
): ObjectKey {
  if (kind === 'NodeClass') {
    const group = (object.apiVersion ?? '').split('/')[0] ?? '';
    return { name: object.metadata.name ?? '', nodeClass: { group, kind: object.kind ?? '' } };
  }
  return {
    name: object.metadata.name ?? '',
    ...(object.metadata.namespace !== undefined ? { namespace: object.metadata.namespace } : {}),
  };
}

function storeKey(kind: Kind, key: ObjectKey): string {
  if (kind === 'NodeClass')
    return `${key.nodeClass?.group ?? ''}/${key.nodeClass?.kind ?? ''}/${key.name}`;
  return NamespacedKinds.has(kind) ? `${key.namespace ?? 'default'}/${key.name}` : key.name;
}

function formatKey(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

function displayKey(kind: Kind, object: AnyObject): string {
  return NamespacedKinds.has(kind)
    ? `${object.metadata.namespace ?? 'default'}/${object.metadata.name ?? ''}`
    : (object.metadata.name ?? '');
}

/** An int-or-percent of `total`; percentages round up. */
function scaled(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (m !== null) return Math.ceil((Number(m[1]) * total) / 100);
  const n = Number(value);
  return Number.isInteger(n) ? n : 0;
}
