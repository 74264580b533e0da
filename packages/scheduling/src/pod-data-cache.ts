/**
 * Per-pod scheduling data that outlives one Scheduler: a caller that builds a new Scheduler on
 * every pass over the same pod objects (a provisioner re-solving a pending backlog, the
 * simulation's kube-scheduler stand-in) hands each of them the same cache, so a pod's requests,
 * constraints, queue key and topology group specs are derived once per pod object rather than
 * once per pass. Only what depends on the pod alone is shared: a Scheduler recomputes what
 * depends on its NodePools and catalog (see `PodMemo.owner`), and a pod whose volumes constrain
 * placement gets data of its own in every Scheduler (volumes are read from cluster state that
 * may change between passes).
 *
 * Entries are keyed by the pod object (weakly), so the cache pays off when the caller lists
 * the same, unchanged objects on every pass (e.g. `MemoryKubeClient.view`); a fresh copy of a
 * pod is a new entry.
 */
import type { Pod } from '@karpenter-ts/api';
import type { PreferencePolicy } from './pod-constraints.js';
import { RequestKeyLists, type PodData } from './pod-data.js';
import { TopologyGroupSpecs } from './topology/topology.js';

/** Options of {@link PodDataCache}. */
export interface PodDataCacheOptions {
  /** The preference policy of every Scheduler given this cache; default `Respect`. */
  readonly preferencePolicy?: PreferencePolicy;
  /** Namespace labels for pod-affinity `namespaceSelector`s, as `SchedulerOptions.namespaceLabels`. */
  readonly namespaceLabels?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** See the module comment. Pass it as `SchedulerOptions.podDataCache`. */
export class PodDataCache {
  /** The policy a pod's constraints were derived under; a Scheduler with another one refuses the cache. */
  readonly preferencePolicy: PreferencePolicy;
  readonly namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>> | undefined;
  /** Topology group identities, shared so a pod's cached group specs stay valid. */
  readonly groupSpecs: TopologyGroupSpecs;
  readonly #byPod = new WeakMap<Pod, PodData>();
  /** Interned request name lists (see `PodMemo.requestKeys`), shared by every Scheduler. */
  readonly requestKeyLists = new RequestKeyLists();

  constructor(options: PodDataCacheOptions = {}) {
    this.preferencePolicy = options.preferencePolicy ?? 'Respect';
    this.namespaceLabels = options.namespaceLabels;
    this.groupSpecs = new TopologyGroupSpecs(options.namespaceLabels);
  }

  /** The pod's shared data, or undefined. */
  get(pod: Pod): PodData | undefined {
    return this.#byPod.get(pod);
  }

  /** Keeps `data` as the pod's shared data (its `volumes` must be undefined). */
  set(pod: Pod, data: PodData): void {
    this.#byPod.set(pod, data);
  }
}
