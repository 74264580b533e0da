/**
 * The simulator's in-memory API server: {@link MemoryKubeClient} that counts writes (so the
 * engine knows when a tick changed nothing), reports each successful eviction and each event to
 * an observer, and keeps no event list (a day of events would only grow the heap).
 */
import {
  MemoryKubeClient,
  type EvictOptions,
  type Kind,
  type KubeEvent,
  type KubeObjects,
  type MergePatch,
  type ObjectKey,
  type PatchOptions,
  type DeleteOptions,
} from '@karpenter-ts/controllers';
import type { Pod } from '@karpenter-ts/api';

/** What the observer hears. Hooks must not throw. */
export interface ClientObserver {
  /** A running or pending pod was evicted (it is now deleted). */
  evicted?(pod: Pod): void;
  /** An event a controller recorded. */
  event?(event: KubeEvent): void;
}

/** See the module comment. */
export class ObservedKubeClient extends MemoryKubeClient {
  /** Write calls so far (create, update, patch, updateStatus, delete, evict, bind), failed ones included. */
  writes = 0;
  observer: ClientObserver = {};

  override async create<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    this.writes++;
    return super.create(kind, object);
  }

  override async update<K extends Kind>(kind: K, object: KubeObjects[K]): Promise<KubeObjects[K]> {
    this.writes++;
    return super.update(kind, object);
  }

  override async patch<K extends Kind>(
    kind: K,
    key: ObjectKey,
    patch: MergePatch,
    options?: PatchOptions,
  ): Promise<KubeObjects[K]> {
    this.writes++;
    return super.patch(kind, key, patch, options);
  }

  override async updateStatus<K extends Kind>(
    kind: K,
    object: KubeObjects[K],
  ): Promise<KubeObjects[K]> {
    this.writes++;
    return super.updateStatus(kind, object);
  }

  override async delete<K extends Kind>(
    kind: K,
    key: ObjectKey,
    options?: DeleteOptions,
  ): Promise<void> {
    this.writes++;
    return super.delete(kind, key, options);
  }

  override async evict(podKey: ObjectKey, options?: EvictOptions): Promise<void> {
    this.writes++;
    const pod = await this.get('Pod', podKey);
    await super.evict(podKey, options);
    if (pod !== undefined && pod.metadata?.deletionTimestamp === undefined)
      this.observer.evicted?.(pod);
  }

  override async bind(pod: ObjectKey, nodeName: string): Promise<Pod> {
    this.writes++;
    return super.bind(pod, nodeName);
  }

  override recordEvent(event: KubeEvent): void {
    this.observer.event?.(event);
  }
}
