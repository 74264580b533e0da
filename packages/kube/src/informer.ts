/**
 * An informer: a local cache of one resource kept current by list + watch, like client-go's
 * reflector and store. It lists once (paged), then watches from the list's resourceVersion with
 * bookmarks, and:
 * - when the watch ends normally (the server's `timeoutSeconds`, or the API server closing the
 *   connection), re-watches from the last resourceVersion it saw, without relisting;
 * - on 410 Gone (the resourceVersion left the API server's watch window, as an HTTP answer or
 *   as an ERROR event in the stream), relists and reconciles the cache: objects that vanished
 *   meanwhile are reported DELETED, changed ones MODIFIED, new ones ADDED;
 * - on other failures (429, 5xx, refused connections, a CRD not installed yet), reports the
 *   failure to `onError` and retries with exponential backoff and jitter, forever, until
 *   stopped. Lists are sent without the connection's own retries, so every failed attempt is
 *   reported (client-go's reflector logs each failed list and watch the same way).
 *
 * We run this loop ourselves over the library's `Watch` stream rather than using its
 * `ListWatch`, because `ListWatch` stops for good on the first non-410 error, cannot ask the
 * server to end a watch (`timeoutSeconds`) and does not request bookmarks.
 */
import type { KubeConnection, WatchStream } from './connection.js';
import { KubeApiError } from '@karpenter-ts/controllers';
import { collectionPath, type ResourceType } from './resources.js';
import { WakeableSleep } from './wakeable-sleep.js';

/** The part of an object the cache needs. */
export interface CachedObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

/** A change of the cache, as handlers see it. */
export interface InformerEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The stored object (shared: handlers must not modify it). */
  readonly object: T;
}

/** Timings of an {@link Informer}; all injectable so tests can make the server close watches. */
export interface InformerOptions<T> {
  /**
   * `timeoutSeconds` of each watch request: the server ends the watch after it and the informer
   * watches again. Default: random between 300 and 600 s (client-go: 5 to 10 min), which spreads
   * the restarts of many informers.
   */
  readonly watchTimeoutSeconds?: () => number;
  /** First delay after a failure, milliseconds. Default 500. */
  readonly minBackoffMs?: number;
  /** Largest delay after repeated failures, milliseconds. Default 30 000. */
  readonly maxBackoffMs?: number;
  /** Page size of the list, objects. Default 500. */
  readonly pageSize?: number;
  /** Turns a JSON object from the server into the stored form (e.g. `Date` timestamps). */
  readonly transform?: (raw: unknown) => T;
  /**
   * Told about every failure before the backoff (for logs and metrics), with the resource of
   * the informer that failed (informers of a client share their options). A failed list or
   * watch request has already used up the connection's own retries.
   */
  readonly onError?: (err: unknown, resource: ResourceType) => void;
}

/** Counters of an informer's work, for logs and for tests that prove restarts happened. */
export interface InformerStats {
  /** Completed full lists (1 after start; each relist after 410 adds one). */
  lists: number;
  /** Watch requests opened. */
  watches: number;
  /** Watches that ended with 410 Gone. */
  expired: number;
  /** Failures that led to a backoff. */
  failures: number;
}

interface ListResponse {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: unknown[];
}

/** See the module comment. */
export class Informer<T extends CachedObject> {
  readonly resource: ResourceType;
  readonly stats: InformerStats = { lists: 0, watches: 0, expired: 0, failures: 0 };
  readonly #connection: KubeConnection;
  readonly #options: InformerOptions<T>;
  readonly #objects = new Map<string, T>();
  readonly #handlers = new Set<(event: InformerEvent<T>) => void>();
  #resourceVersion = '';
  #running = false;
  #loop: Promise<void> | undefined;
  #stream: WatchStream | undefined;
  readonly #pause = new WakeableSleep();
  #synced: Promise<void>;
  #markSynced!: () => void;
  #hasSynced = false;

  constructor(
    connection: KubeConnection,
    resource: ResourceType,
    options: InformerOptions<T> = {},
  ) {
    this.#connection = connection;
    this.resource = resource;
    this.#options = options;
    this.#synced = new Promise((resolve) => {
      this.#markSynced = resolve;
    });
  }

  /** Starts listing and watching in the background (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Resolves once the first list is in the cache. */
  synced(): Promise<void> {
    return this.#synced;
  }

  /** True once the first list is in the cache. */
  get hasSynced(): boolean {
    return this.#hasSynced;
  }

  /** Stops the watch and the loop; resolves when the loop has ended. The cache stays readable. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stream?.abort();
    this.#pause.wake();
    await this.#loop;
  }

  /** The stored object (shared, do not modify), or undefined. */
  get(name: string, namespace?: string): T | undefined {
    return this.#objects.get(cacheKey(namespace, name));
  }

  /** Every stored object (shared, do not modify). */
  list(): T[] {
    return [...this.#objects.values()];
  }

  /**
   * Subscribes to cache changes from now on; returns the unsubscribe function. Objects already
   * in the cache are not replayed (client-go's AddEventHandler does replay them): a subscriber
   * that needs them lists after subscribing, as cluster state and the controller manager do. So
   * `ClusterKubeClient.watch` keeps the KubeClient contract the in-memory client follows too.
   */
  on(handler: (event: InformerEvent<T>) => void): () => void {
    this.#handlers.add(handler);
    return () => {
      this.#handlers.delete(handler);
    };
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (this.#running) {
      try {
        if (this.#resourceVersion === '') await this.#relist();
        if (!this.#running) break;
        const expired = await this.#watchOnce();
        if (expired) {
          this.stats.expired++;
          this.#resourceVersion = '';
        }
        failures = 0;
      } catch (err) {
        if (!this.#running) break;
        if (err instanceof KubeApiError && err.code === 410) {
          this.stats.expired++;
          this.#resourceVersion = '';
          continue;
        }
        failures++;
        this.stats.failures++;
        this.#options.onError?.(err, this.resource);
        await this.#pause.sleep(this.#backoff(failures));
      }
    }
  }

  #backoff(failures: number): number {
    const min = this.#options.minBackoffMs ?? 500;
    const max = this.#options.maxBackoffMs ?? 30_000;
    const base = Math.min(max, min * 2 ** (failures - 1));
    return base / 2 + Math.random() * (base / 2);
  }

  /** Lists every object (paged) and reconciles the cache with it. */
  async #relist(): Promise<void> {
    const items: T[] = [];
    let next: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.#connection.request<ListResponse>(
        'GET',
        collectionPath(this.resource),
        {
          query: { limit: this.#options.pageSize ?? 500, continue: next },
          // The loop's backoff retries a failed list, so each failure reaches `onError` (and
          // the logs) at once, as client-go's reflector reports every failed list.
          retry: false,
        },
      );
      for (const item of page.items ?? []) items.push(this.#transform(item));
      next = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? '';
    } while (next !== undefined);
    const seen = new Set<string>();
    for (const object of items) {
      const key = keyOf(object);
      seen.add(key);
      this.#store(object);
    }
    for (const [key, object] of [...this.#objects]) {
      if (seen.has(key)) continue;
      this.#objects.delete(key);
      this.#emit('DELETED', object);
    }
    this.#resourceVersion = resourceVersion;
    this.stats.lists++;
    if (!this.#hasSynced) {
      this.#hasSynced = true;
      this.#markSynced();
    }
  }

  /** Watches until the stream ends; resolves true when it ended with 410 Gone. */
  async #watchOnce(): Promise<boolean> {
    let expired = false;
    let failure: unknown;
    // An ERROR event may arrive before the stream handle does; then abort once it is there.
    let stream: WatchStream | undefined;
    let abortRequested = false;
    const abort = (): void => {
      abortRequested = true;
      stream?.abort();
    };
    const ended = new Promise<void>((resolve, reject) => {
      const onEvent = (type: string, raw: unknown): void => {
        if (type === 'ERROR') {
          const status = raw as { code?: number; message?: string };
          if (status.code === 410) expired = true;
          else failure = new KubeApiError(status.code ?? 500, status.message ?? 'watch error');
          abort();
          return;
        }
        const rv = (raw as CachedObject).metadata?.resourceVersion;
        if (type === 'BOOKMARK') {
          if (rv) this.#resourceVersion = rv;
          return;
        }
        const object = this.#transform(raw);
        if (type === 'DELETED') {
          const key = keyOf(object);
          if (this.#objects.delete(key)) this.#emit('DELETED', object);
        } else if (type === 'ADDED' || type === 'MODIFIED') this.#store(object);
        if (rv) this.#resourceVersion = rv;
      };
      const onDone = (err: unknown): void => {
        if (err === null || err === undefined) {
          if (failure !== undefined) reject(failure);
          else resolve();
        } else reject(err);
      };
      this.stats.watches++;
      this.#connection
        .watch(
          collectionPath(this.resource),
          {
            resourceVersion: this.#resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: Math.max(1, Math.round(this.#watchTimeout())),
          },
          onEvent,
          onDone,
        )
        .then((opened) => {
          stream = opened;
          this.#stream = opened;
          if (abortRequested || !this.#running) opened.abort();
        }, reject);
    });
    await ended;
    this.#stream = undefined;
    return expired;
  }

  #watchTimeout(): number {
    return this.#options.watchTimeoutSeconds?.() ?? 300 + Math.random() * 300;
  }

  #transform(raw: unknown): T {
    return this.#options.transform ? this.#options.transform(raw) : (raw as T);
  }

  /** Stores an object and emits ADDED or MODIFIED (nothing when its resourceVersion is unchanged). */
  #store(object: T): void {
    const key = keyOf(object);
    const old = this.#objects.get(key);
    if (old !== undefined && old.metadata?.resourceVersion === object.metadata?.resourceVersion)
      return;
    this.#objects.set(key, object);
    this.#emit(old === undefined ? 'ADDED' : 'MODIFIED', object);
  }

  #emit(type: InformerEvent<T>['type'], object: T): void {
    for (const handler of [...this.#handlers]) {
      try {
        handler({ type, object });
      } catch (err) {
        this.#options.onError?.(err, this.resource);
      }
    }
  }
}

function keyOf(object: CachedObject): string {
  return cacheKey(object.metadata?.namespace, object.metadata?.name ?? '');
}

function cacheKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
