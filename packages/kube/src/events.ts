/**
 * Writes core/v1 Events (what `kubectl describe` and `kubectl get events` show), deduplicated
 * the way client-go's event recorder does: a repeat of the same event (same object, type,
 * reason and message) within the window does not create a new Event but raises the existing
 * one's `count` and `lastTimestamp`. Recording is best effort: failures go to `onError`,
 * never to the caller.
 */
import type { KubeEvent } from '@karpenter-ts/controllers';
import type { KubeConnection } from './connection.js';
import {
  apiVersionOf,
  collectionPath,
  EventResource,
  objectPath,
  type ResourceType,
} from './resources.js';

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** `source.component` and `reportingComponent` of the events. Default `karpenter`. */
  readonly component?: string;
  /** Repeats within this many milliseconds update the first Event. Default 10 minutes. */
  readonly dedupWindowMs?: number;
  /** Most distinct events remembered for deduplication (oldest forgotten first). Default 4096. */
  readonly maxRemembered?: number;
  /** Current time, milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Told about every failed write. */
  readonly onError?: (err: unknown) => void;
}

interface Remembered {
  name: string;
  namespace: string;
  count: number;
  firstSeenMs: number;
  /** The write chain of this event: repeats wait for the create. */
  pending: Promise<boolean>;
}

/** See the module comment. */
export class EventRecorder {
  readonly #connection: KubeConnection;
  readonly #component: string;
  readonly #windowMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #onError: (err: unknown) => void;
  readonly #seen = new Map<string, Remembered>();
  readonly #pending = new Set<Promise<unknown>>();
  #sequence = 0;

  constructor(connection: KubeConnection, options: EventRecorderOptions = {}) {
    this.#connection = connection;
    this.#component = options.component ?? 'karpenter';
    this.#windowMs = options.dedupWindowMs ?? 10 * 60_000;
    this.#max = options.maxRemembered ?? 4096;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
  }

  /**
   * Records an event about an object of `resource` (its apiVersion goes into
   * `involvedObject`). Cluster-scoped objects' events go to the `default` namespace, as
   * client-go does. Never throws.
   */
  record(event: KubeEvent, resource: ResourceType | undefined): void {
    const namespace = event.involved.namespace || 'default';
    const key = [
      event.involved.kind,
      namespace,
      event.involved.name,
      event.involved.uid ?? '',
      event.type,
      event.reason,
      event.message,
    ].join('\u0000');
    const now = this.#now();
    const known = this.#seen.get(key);
    if (known !== undefined && now - known.firstSeenMs < this.#windowMs) {
      known.count++;
      const count = known.count;
      known.pending = this.#track(
        known.pending.then((created) => (created ? this.#bump(known, count, now) : false)),
      );
      return;
    }
    const name = `${event.involved.name}.${now.toString(16)}${(this.#sequence++ % 4096).toString(16).padStart(3, '0')}`;
    const entry: Remembered = {
      name,
      namespace,
      count: 1,
      firstSeenMs: now,
      pending: Promise.resolve(false),
    };
    this.#seen.delete(key);
    this.#seen.set(key, entry);
    if (this.#seen.size > this.#max) this.#seen.delete(this.#seen.keys().next().value as string);
    const time = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
    entry.pending = this.#track(
      this.#connection
        .request('POST', collectionPath(EventResource, namespace), {
          body: {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name, namespace },
            involvedObject: {
              kind: resource?.kind ?? event.involved.kind,
              ...(resource === undefined ? {} : { apiVersion: apiVersionOf(resource) }),
              name: event.involved.name,
              ...(event.involved.namespace ? { namespace: event.involved.namespace } : {}),
              ...(event.involved.uid ? { uid: event.involved.uid } : {}),
            },
            type: event.type,
            reason: event.reason,
            message: event.message,
            count: 1,
            firstTimestamp: time,
            lastTimestamp: time,
            source: { component: this.#component },
            reportingComponent: this.#component,
          },
        })
        .then(
          () => true,
          (err: unknown) => {
            this.#seen.delete(key);
            this.#onError(err);
            return false;
          },
        ),
    );
  }

  /** Resolves when every write started so far has finished. */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #bump(entry: Remembered, count: number, now: number): Promise<boolean> {
    try {
      await this.#connection.request(
        'PATCH',
        objectPath(EventResource, entry.name, entry.namespace),
        {
          body: { count, lastTimestamp: new Date(now).toISOString().replace(/\.\d+Z$/, 'Z') },
          contentType: 'application/merge-patch+json',
        },
      );
      return true;
    } catch (err) {
      this.#onError(err);
      return false;
    }
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
    return promise;
  }
}
