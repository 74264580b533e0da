/**
 * `ClusterKubeClient`: the controllers' {@link KubeClient} against a real API server.
 * Reads come from one {@link Informer} per resource (Pods, Nodes, DaemonSets,
 * PodDisruptionBudgets, NodePools, NodeClaims, each configured NodeClass kind, LimitRanges,
 * PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes); writes go to
 * the server. Semantics are the contract's (see @karpenter-ts/controllers `KubeClient`), with
 * two additions that upstream controllers also lean on: {@link ClusterKubeClient.jsonPatch}
 * (RFC 6902 with a resourceVersion precondition) and {@link ClusterKubeClient.mutate} /
 * {@link ClusterKubeClient.mutateStatus} (read, change, write; retried on conflict).
 */
import {
  ConflictError,
  KubeApiError,
  matchesListOptions,
  NamespacedKinds,
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
} from '@karpenter-ts/controllers';
import type { KubeConnection } from './connection.js';
import { EventRecorder, type EventRecorderOptions } from './events.js';
import { Informer, type CachedObject, type InformerOptions } from './informer.js';
import { fromServer, toServer } from './objects.js';
import {
  BuiltinResources,
  NodeClassResources,
  collectionPath,
  objectPath,
  type ResourceType,
} from './resources.js';

/** One JSON Patch (RFC 6902) operation. */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/**
 * The kinds {@link ClusterKubeClient} caches unless told otherwise: every kind of the
 * KubeClient contract, `NodeClass` standing for each configured NodeClass kind, except
 * `NodeOverlay`, which a controller caches only with its `NodeOverlay` gate on (so a cluster
 * without that CRD, or without RBAC for it, still syncs).
 */
export const DefaultCachedKinds: readonly Kind[] = [
  'Pod',
  'Node',
  'DaemonSet',
  'PodDisruptionBudget',
  'NodePool',
  'NodeClaim',
  'NodeClass',
  'LimitRange',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'CSINode',
];

/** Options of {@link ClusterKubeClient}. */
export interface ClusterKubeClientOptions {
  /** NodeClass kinds to cache and serve. Default: {@link NodeClassResources} (AKS and EC2). */
  readonly nodeClasses?: readonly ResourceType[];
  /** Kinds to keep informers for. Default: {@link DefaultCachedKinds}. Reads of other kinds return nothing. */
  readonly kinds?: readonly Kind[];
  /**
   * Informer timings (watch timeout, backoff) shared by every informer. `onError` is told about
   * every failed list or watch; the client also keeps the last one for
   * {@link ClusterKubeClient.start}'s timeout error.
   */
  readonly informer?: Omit<InformerOptions<never>, 'transform'>;
  /** Event recording (source component, deduplication window). */
  readonly events?: EventRecorderOptions;
  /** Attempts of {@link ClusterKubeClient.mutate} on conflict. Default 5. */
  readonly conflictRetries?: number;
}

/** Options of {@link ClusterKubeClient.start}. */
export interface StartOptions {
  /** Reject when the caches have not synced after this many milliseconds. Default: wait forever. */
  readonly timeoutMs?: number;
  /**
   * Stop waiting when this aborts (a shutdown during startup): `start` rejects at once with the
   * signal's reason and leaves no timer behind.
   */
  readonly signal?: AbortSignal;
}

type AnyObject = CachedObject & {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    generateName?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
};

/** See the module comment. */
export class ClusterKubeClient implements KubeClient {
  readonly #connection: KubeConnection;
  readonly #nodeClasses: readonly ResourceType[];
  readonly #informers = new Map<Kind, Informer<AnyObject>[]>();
  readonly #events: EventRecorder;
  readonly #conflictRetries: number;
  /** The last failed list or watch of any informer, for the sync timeout's error. */
  #lastFailure: { readonly resource: ResourceType; readonly err: unknown } | undefined;

  constructor(connection: KubeConnection, options: ClusterKubeClientOptions = {}) {
    this.#connection = connection;
    this.#nodeClasses = options.nodeClasses ?? NodeClassResources;
    this.#conflictRetries = options.conflictRetries ?? 5;
    this.#events = new EventRecorder(connection, options.events);
    const onError = options.informer?.onError;
    for (const kind of options.kinds ?? DefaultCachedKinds) {
      const resources = kind === 'NodeClass' ? this.#nodeClasses : [BuiltinResources[kind]];
      this.#informers.set(
        kind,
        resources.map(
          (resource) =>
            new Informer<AnyObject>(connection, resource, {
              ...options.informer,
              onError: (err, failed) => {
                this.#lastFailure = { resource: failed, err };
                onError?.(err, failed);
              },
              transform: (raw) => fromServer<AnyObject>(resource, raw),
            }),
        ),
      );
    }
  }

  /**
   * Starts every informer and resolves once all caches hold their first list.
   * @throws Error when `timeoutMs` passes first: `caches not synced after <timeoutMs> ms:
   * <plural.group, ...> (<cause>)`, the cause being a missing CRD when other caches synced, else
   * an unreachable API server, followed by `; last error (<plural.group>): <Name>: <message>`
   * when a list or watch of any cache has failed. The informers keep retrying in the background.
   * @throws the reason of `signal` when it aborts: at once, before any informer starts when it
   * was aborted already; informers already started keep running until {@link stop}.
   */
  async start(options: StartOptions = {}): Promise<void> {
    const { timeoutMs, signal } = options;
    signal?.throwIfAborted();
    const all = [...this.#informers.values()].flat();
    for (const informer of all) informer.start();
    const synced = Promise.all(all.map((i) => i.synced())).then(() => undefined);
    if (timeoutMs === undefined && signal === undefined) return synced;
    // Both the deadline and the abort are cleaned up when the wait ends either way, so neither a
    // timer nor a listener outlives it (a pending timer would hold the process after shutdown).
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => reject(this.#notSyncedError(all, timeoutMs)), timeoutMs);
      }
      if (signal !== undefined) {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      await Promise.race([synced, stopped]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  #notSyncedError(all: readonly Informer<AnyObject>[], timeoutMs: number): Error {
    const unsynced = all.filter((i) => !i.hasSynced);
    const missing = unsynced.map((i) => resourceName(i.resource));
    // Some caches listed: the server answers, so a missing CRD is the likely cause.
    const cause =
      unsynced.length < all.length ? 'is the CRD installed?' : 'is the API server reachable?';
    const failure = this.#lastFailure;
    const last =
      failure === undefined
        ? ''
        : `; last error (${resourceName(failure.resource)}): ${errorText(failure.err)}`;
    return new Error(
      `caches not synced after ${timeoutMs} ms: ${missing.join(', ')} (${cause})${last}`,
    );
  }

  /** Stops every informer and waits for pending event writes. */
  async stop(): Promise<void> {
    await Promise.all([...this.#informers.values()].flat().map((i) => i.stop()));
    await this.#events.flush();
  }

  /** The informers of a kind (one per NodeClass kind for `NodeClass`), for stats and tests. */
  informers(kind: Kind): readonly Informer<CachedObject>[] {
    return this.#informers.get(kind) ?? [];
  }

  async get<K extends Kind>(kind: K, key: ObjectKey): Promise<KubeObjects[K] | undefined> {
    for (const informer of this.#informersFor(kind, key)) {
      const found = informer.get(
        key.name,
        NamespacedKinds.has(kind) ? (key.namespace ?? 'default') : undefined,
      );
      if (found !== undefined) return structuredClone(found) as unknown as KubeObjects[K];
    }
    return undefined;
  }

  async list<K extends Kind>(kind: K, options: ListOptions = {}): Promise<KubeObjects[K][]> {
    const out: KubeObjects[K][] = [];
    for (const informer of this.#informers.get(kind) ?? []) {
      for (const object of informer.list()) {
        if (matchesListOptions(kind, object, options))
          out.push(structuredClone(object) as unknown as KubeObjects[K]);
      }
    }
    return out;
  }

  async create<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    const resource = this.#resourceOfObject(kind, object);
    const meta = (object as AnyObject).metadata ?? {};
    const namespace = resource.namespaced ? (meta.namespace ?? 'default') : undefined;
    const body = toServer(resource, object);
    if (namespace !== undefined) (body.metadata as Record<string, unknown>).namespace = namespace;
    const created = await this.#connection.request('POST', collectionPath(resource, namespace), {
      body,
      // A repeated POST with generateName could create a second object.
      retry: !meta.generateName || Boolean(meta.name),
    });
    return fromServer(resource, created);
  }

  async update<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    const resource = this.#resourceOfObject(kind, object);
    const meta = (object as AnyObject).metadata ?? {};
    const updated = await this.#connection.request(
      'PUT',
      objectPath(resource, meta.name ?? '', this.#namespace(resource, meta.namespace)),
      {
        body: toServer(resource, object),
      },
    );
    return fromServer(resource, updated);
  }

  async patch<K extends Kind>(
    kind: K,
    key: ObjectKey,
    patch: MergePatch,
    options: PatchOptions = {},
  ): Promise<KubeObjects[K]> {
    const resource = this.#resourceOfKey(kind, key);
    const { status: _status, ...body } = patch as Record<string, unknown>;
    if (options.resourceVersion !== undefined) {
      // A resourceVersion in a merge patch is a precondition: the server answers 409 when stale.
      const metadata = (body.metadata ?? {}) as Record<string, unknown>;
      body.metadata = { ...metadata, resourceVersion: options.resourceVersion };
    }
    const patched = await this.#connection.request(
      'PATCH',
      objectPath(resource, key.name, this.#namespace(resource, key.namespace)),
      {
        body,
        contentType: 'application/merge-patch+json',
      },
    );
    return fromServer(resource, patched);
  }

  /**
   * Applies a JSON Patch (RFC 6902): the form for list edits a merge patch cannot express (remove
   * one finalizer or taint by index, after a `test` of that entry). With
   * `options.resourceVersion`, the patch first sets `/metadata/resourceVersion`, which the
   * server treats as a precondition (409 ConflictError when stale).
   * @throws NotFoundError, ConflictError, KubeApiError(422) when a `test` fails or a path is missing.
   */
  async jsonPatch<K extends Kind>(
    kind: K,
    key: ObjectKey,
    operations: readonly JsonPatchOperation[],
    options: PatchOptions = {},
  ): Promise<KubeObjects[K]> {
    const resource = this.#resourceOfKey(kind, key);
    const body: JsonPatchOperation[] =
      options.resourceVersion === undefined
        ? [...operations]
        : [
            { op: 'replace', path: '/metadata/resourceVersion', value: options.resourceVersion },
            ...operations,
          ];
    const patched = await this.#connection.request(
      'PATCH',
      objectPath(resource, key.name, this.#namespace(resource, key.namespace)),
      {
        body,
        contentType: 'application/json-patch+json',
      },
    );
    return fromServer(resource, patched);
  }

  async updateStatus<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    const resource = this.#resourceOfObject(kind, object);
    const meta = (object as AnyObject).metadata ?? {};
    const updated = await this.#connection.request(
      'PUT',
      objectPath(resource, meta.name ?? '', this.#namespace(resource, meta.namespace), 'status'),
      { body: toServer(resource, object) },
    );
    return fromServer(resource, updated);
  }

  /**
   * Reads the object from the server (not the cache), applies `change` to it and writes it with
   * its resourceVersion; on ConflictError, reads and applies again, up to `conflictRetries`
   * attempts (client-go's RetryOnConflict). `change` may modify the object in place; returning
   * `false` skips the write. Safe because `change` is re-run on the latest object.
   * @throws NotFoundError, ConflictError when every attempt conflicted.
   */
  async mutate<K extends Kind>(
    kind: K,
    key: ObjectKey,
    change: (object: KubeObjects[K]) => void | false | Promise<void | false>,
  ): Promise<KubeObjects[K]> {
    return this.#mutate(kind, key, change, (object) => this.update(kind, object));
  }

  /** {@link ClusterKubeClient.mutate} for the status subresource. */
  async mutateStatus<K extends Kind>(
    kind: K,
    key: ObjectKey,
    change: (object: KubeObjects[K]) => void | false | Promise<void | false>,
  ): Promise<KubeObjects[K]> {
    return this.#mutate(kind, key, change, (object) => this.updateStatus(kind, object));
  }

  async #mutate<K extends Kind>(
    kind: K,
    key: ObjectKey,
    change: (object: KubeObjects[K]) => void | false | Promise<void | false>,
    write: (object: KubeObjects[K]) => Promise<KubeObjects[K]>,
  ): Promise<KubeObjects[K]> {
    const resource = this.#resourceOfKey(kind, key);
    for (let attempt = 1; ; attempt++) {
      const current = fromServer<KubeObjects[K]>(
        resource,
        await this.#connection.request(
          'GET',
          objectPath(resource, key.name, this.#namespace(resource, key.namespace)),
        ),
      );
      if ((await change(current)) === false) return current;
      try {
        return await write(current);
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt >= this.#conflictRetries) throw err;
      }
    }
  }

  async delete<K extends Kind>(
    kind: K,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<void> {
    const resource = this.#resourceOfKey(kind, key);
    await this.#connection.request(
      'DELETE',
      objectPath(resource, key.name, this.#namespace(resource, key.namespace)),
      {
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          ...(options.gracePeriodSeconds === undefined
            ? {}
            : { gracePeriodSeconds: options.gracePeriodSeconds }),
          ...(options.uid === undefined ? {} : { preconditions: { uid: options.uid } }),
        },
      },
    );
  }

  async evict(pod: ObjectKey, options: EvictOptions = {}): Promise<void> {
    const namespace = pod.namespace ?? 'default';
    await this.#connection.request(
      'POST',
      objectPath(BuiltinResources.Pod, pod.name, namespace, 'eviction'),
      {
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: pod.name, namespace },
          deleteOptions: {
            ...(options.gracePeriodSeconds === undefined
              ? {}
              : { gracePeriodSeconds: options.gracePeriodSeconds }),
            ...(options.uid === undefined ? {} : { preconditions: { uid: options.uid } }),
          },
        },
        // 429 here is the PodDisruptionBudget's answer and 500 "more than one budget": both final.
        retry: false,
      },
    );
  }

  watch<K extends Kind>(kind: K, handler: (event: WatchEvent<K>) => void): () => void {
    const offs = (this.#informers.get(kind) ?? []).map((informer) =>
      informer.on((event) =>
        handler({
          type: event.type,
          object: structuredClone(event.object) as unknown as KubeObjects[K],
        }),
      ),
    );
    return () => {
      for (const off of offs) off();
    };
  }

  recordEvent(event: KubeEvent): void {
    this.#events.record(event, this.#involvedResource(event.involved.kind));
  }

  /** Resolves when every event recorded so far has been written (or has failed). */
  flushEvents(): Promise<void> {
    return this.#events.flush();
  }

  #involvedResource(kind: string): ResourceType | undefined {
    if (kind in BuiltinResources) return BuiltinResources[kind as Exclude<Kind, 'NodeClass'>];
    return this.#nodeClasses.find((r) => r.kind === kind);
  }

  #namespace(resource: ResourceType, namespace: string | undefined): string | undefined {
    return resource.namespaced ? (namespace ?? 'default') : undefined;
  }

  #informersFor(kind: Kind, key: ObjectKey): Informer<AnyObject>[] {
    const informers = this.#informers.get(kind) ?? [];
    if (kind !== 'NodeClass' || key.nodeClass === undefined) return informers;
    const ref = key.nodeClass;
    return informers.filter((i) => i.resource.group === ref.group && i.resource.kind === ref.kind);
  }

  #resourceOfKey(kind: Kind, key: ObjectKey): ResourceType {
    if (kind !== 'NodeClass') return BuiltinResources[kind];
    const ref = key.nodeClass;
    const found = this.#nodeClasses.find((r) => r.group === ref?.group && r.kind === ref?.kind);
    if (found === undefined) {
      throw new KubeApiError(
        404,
        `NodeClass ${key.name}: unknown NodeClass kind ${ref?.kind ?? '(none)'} of group ${ref?.group ?? '(none)'}`,
      );
    }
    return found;
  }

  #resourceOfObject(kind: Kind, object: unknown): ResourceType {
    if (kind !== 'NodeClass') return BuiltinResources[kind];
    const o = object as AnyObject;
    const group = (o.apiVersion ?? '').split('/')[0] ?? '';
    return this.#resourceOfKey(kind, {
      name: o.metadata?.name ?? '',
      nodeClass: { group, kind: o.kind ?? '' },
    });
  }
}

/** A resource as logs and errors name it: `plural.group`, `core` for the core group. */
function resourceName(resource: ResourceType): string {
  return `${resource.plural}.${resource.group || 'core'}`;
}

/** An error as one line: `Name: message`, or the thrown value as text. */
function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
