/**
 * Per-pod scheduling data, computed once per pod and cached (upstream caches it by UID since
 * PR #1950): requests, host ports, unrelaxed constraints, and the requirements of any
 * constraints object.
 */
import type { Pod } from '@karpenter-ts/api';
import { podHostPorts, type HostPort } from './host-ports.js';
import { podConstraints, type PodConstraints, type PreferencePolicy } from './pod-constraints.js';
import { podRequests } from './pod-requests.js';
import { Requirements } from './requirements.js';
import type { ResourceList } from './resources.js';
import type { TopologyMemo } from './topology/topology.js';
import type { PodVolumes } from './volumes.js';

/** What the scheduler needs of a pod, computed once. */
export interface PodData {
  readonly pod: Pod;
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Requests as the kube-scheduler counts them, with `pods: 1`. */
  readonly requests: ResourceList;
  readonly hostPorts: readonly HostPort[];
  /** Constraints before any relaxation. */
  readonly constraints: PodConstraints;
  /** Whether the pod asks for Dynamic Resource Allocation claims (not simulated; see scheduler). */
  readonly usesResourceClaims: boolean;
  /** Its volumes' placement alternatives and attachments; undefined when none matter. */
  readonly volumes: PodVolumes | undefined;
  /**
   * Cache slots the scheduler fills for this pod and its unrelaxed `constraints`: a property
   * load where a WeakMap lookup per attempt (tens of thousands of keys) would cost more, in
   * lookups and in garbage collection.
   */
  readonly memo: PodMemo;
}

/** Mutable per-pod cache slots owned by the scheduler; see `PodData.memo`. */
export interface PodMemo {
  /**
   * The Scheduler whose `attempt` and `relaxed` these are (they depend on its NodePools and
   * catalog): data shared through a PodDataCache is reused by the next Scheduler, which clears
   * them first. The other slots depend on the pod alone.
   */
  owner?: object;
  /** The scheduler's per-constraints attempt data for the unrelaxed constraints. */
  attempt?: unknown;
  /** The relaxation of the unrelaxed constraints (null: nothing to relax); see `relax`. */
  relaxed?: PodConstraints | null;
  /**
   * The topology cache of the unrelaxed constraints: their group specs (the pod's alone, given
   * the Scheduler's or PodDataCache's group specs) and the groups of the batch that resolved
   * them last.
   */
  topology?: TopologyMemo;
  /** The requests as a solver vector, and the column key it was built for. */
  vector?: Float64Array;
  vectorKey?: string;
  /** `metadata.creationTimestamp` in ms since the epoch (0 when absent or invalid). */
  createdMillis?: number;
  /** The pod's queue-order key (see queue.ts); null when its uid cannot be encoded. */
  queueKey?: Float64Array | null;
  /**
   * The names of `requests` in order, one shared array per distinct list (interned by the
   * scheduler): pods with the same array sum key by key in the same order.
   */
  requestKeys?: readonly string[];
}

/** Requirements of one set of constraints. */
export interface ConstraintRequirements {
  /**
   * Node selector, the first required node-affinity term, and (while preferences are
   * respected) the heaviest preferred node-affinity term as if required.
   */
  readonly requirements: Requirements;
  /** Node selector and the first required node-affinity term only. */
  readonly strict: Requirements;
}

/** Builds the pod's scheduling data. Throws (QuantityError/ResourceListError) on malformed requests. */
export function buildPodData(pod: Pod, policy: PreferencePolicy, volumes?: PodVolumes): PodData {
  const spec = pod.spec;
  const usesResourceClaims =
    (spec?.resourceClaims?.length ?? 0) > 0 ||
    [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].some(
      (c) => (c.resources?.claims?.length ?? 0) > 0,
    );
  return {
    pod,
    uid: pod.metadata?.uid ?? `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`,
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? 'default',
    labels: pod.metadata?.labels ?? {},
    requests: podRequests(pod),
    hostPorts: podHostPorts(pod),
    constraints: podConstraints(pod, policy),
    usesResourceClaims,
    volumes: volumesMatter(volumes) ? volumes : undefined,
    // every slot present from the start: one object shape for all pods keeps slot reads monomorphic
    memo: {
      owner: undefined,
      attempt: undefined,
      relaxed: undefined,
      topology: undefined,
      vector: undefined,
      vectorKey: undefined,
      createdMillis: undefined,
      queueKey: undefined,
      requestKeys: undefined,
    },
  };
}

/**
 * Interns request name lists for `PodMemo.requestKeys`: the same names in the same order give
 * the same array, so pods can be compared by identity. One per Scheduler, or shared through a
 * PodDataCache.
 */
export class RequestKeyLists {
  readonly #lists = new Map<string, readonly string[]>();

  /** The interned array of these names (kept as given the first time they are seen). */
  intern(names: string[]): readonly string[] {
    const text = names.join('\n');
    let keys = this.#lists.get(text);
    if (keys === undefined) {
      keys = names;
      this.#lists.set(text, keys);
    }
    return keys;
  }
}

/** Whether these volumes constrain placement (zones to choose from, or attachments to count). */
export function volumesMatter(volumes: PodVolumes | undefined): volumes is PodVolumes {
  return (
    volumes !== undefined && (volumes.requirements.length > 0 || volumes.attachments.length > 0)
  );
}

const requirementCache = new WeakMap<PodConstraints, ConstraintRequirements>();

/**
 * The requirements of a constraints object, cached per object (so the unrelaxed constraints of a
 * pod are converted once). Throws RequirementError for an invalid node selector requirement.
 */
export function constraintRequirements(c: PodConstraints): ConstraintRequirements {
  let cached = requirementCache.get(c);
  if (cached === undefined) {
    const strict = Requirements.fromLabels(c.nodeSelector);
    const firstTerm = c.requiredNodeTerms[0];
    if (firstTerm !== undefined) {
      strict.add(
        ...Requirements.fromNodeSelectorRequirements(firstTerm.matchExpressions ?? []).values(),
      );
    }
    const preferred = c.preferredNodeTerms[0];
    const requirements =
      preferred === undefined
        ? strict
        : strict.intersection(
            Requirements.fromNodeSelectorRequirements(preferred.preference.matchExpressions ?? []),
          );
    cached = { requirements, strict };
    requirementCache.set(c, cached);
  }
  return cached;
}
