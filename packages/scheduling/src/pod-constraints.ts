/**
 * The scheduling constraints of a pod as one scheduling attempt sees them, and upstream's
 * preference relaxation over them (`preferences.go`).
 *
 * Relaxation never mutates the pod: each step returns a new {@link PodConstraints}, and every
 * time the pod is popped from the queue it starts again from its unrelaxed constraints.
 */
import type {
  NodeSelectorTerm,
  Pod,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  Toleration,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '@karpenter-ts/api';

/** `Respect` treats preferences as requirements until relaxed; `Ignore` drops them (upstream `PREFERENCE_POLICY`). */
export type PreferencePolicy = 'Respect' | 'Ignore';

/** What one scheduling attempt of a pod must satisfy. */
export interface PodConstraints {
  /** `spec.nodeSelector`. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node-affinity OR-terms; only the first is enforced (upstream), relaxation drops it for the next. */
  readonly requiredNodeTerms: readonly NodeSelectorTerm[];
  /** Preferred node-affinity terms, heaviest first; the heaviest is enforced as required. */
  readonly preferredNodeTerms: readonly PreferredSchedulingTerm[];
  /** Required pod-affinity terms. */
  readonly requiredAffinity: readonly PodAffinityTerm[];
  /** Preferred pod-affinity terms, heaviest first; all enforced as required until relaxed. */
  readonly preferredAffinity: readonly WeightedPodAffinityTerm[];
  /** Required pod-anti-affinity terms. */
  readonly requiredAntiAffinity: readonly PodAffinityTerm[];
  /** Preferred pod-anti-affinity terms, heaviest first; all enforced until relaxed. */
  readonly preferredAntiAffinity: readonly WeightedPodAffinityTerm[];
  /** Topology spread constraints; `ScheduleAnyway` ones are enforced until relaxed. */
  readonly topologySpread: readonly TopologySpreadConstraint[];
  /** `spec.tolerations`. */
  readonly tolerations: readonly Toleration[];
  /** Set by the last relaxation step: every `PreferNoSchedule` taint is tolerated. */
  readonly toleratesPreferNoSchedule: boolean;
  /** How many relaxation steps produced this view (0 = the pod as written). */
  readonly relaxations: number;
}

function byWeightDesc<T extends { weight: number }>(terms: readonly T[] | undefined): T[] {
  // Stable sort: equal weights keep their written order.
  return [...(terms ?? [])].sort((a, b) => b.weight - a.weight);
}

/**
 * The pod's constraints before any relaxation. Under `Ignore`, preferred node affinity,
 * preferred pod (anti-)affinity and `ScheduleAnyway` spread constraints are dropped entirely.
 */
export function podConstraints(pod: Pod, policy: PreferencePolicy): PodConstraints {
  const spec = pod.spec;
  const affinity = spec?.affinity;
  const respect = policy === 'Respect';
  const spread = spec?.topologySpreadConstraints ?? [];
  return {
    nodeSelector: spec?.nodeSelector ?? {},
    requiredNodeTerms:
      affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ??
      [],
    preferredNodeTerms: respect
      ? byWeightDesc(affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
      : [],
    requiredAffinity: affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
    preferredAffinity: respect
      ? byWeightDesc(affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
      : [],
    requiredAntiAffinity:
      affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
    preferredAntiAffinity: respect
      ? byWeightDesc(affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
      : [],
    topologySpread: respect
      ? spread
      : spread.filter((c) => c.whenUnsatisfiable !== 'ScheduleAnyway'),
    tolerations: spec?.tolerations ?? [],
    toleratesPreferNoSchedule: false,
    relaxations: 0,
  };
}

/** What a relaxation step removed, for logs and error messages. */
export type RelaxationStep =
  | 'required node affinity term'
  | 'preferred pod affinity term'
  | 'preferred pod anti-affinity term'
  | 'preferred node affinity term'
  | 'ScheduleAnyway topology spread constraint'
  | 'PreferNoSchedule taints';

/**
 * Applies the next relaxation step, in upstream's order, and returns the relaxed constraints, or
 * undefined when nothing is left to relax:
 * 1. drop the first required node-affinity OR-term (only while more than one remains);
 * 2. drop the heaviest preferred pod-affinity term;
 * 3. drop the heaviest preferred pod-anti-affinity term;
 * 4. drop the heaviest preferred node-affinity term (the next heaviest becomes enforced);
 * 5. drop one `ScheduleAnyway` topology spread constraint;
 * 6. tolerate every `PreferNoSchedule` taint (only when some NodePool has such a taint).
 */
export function relax(
  c: PodConstraints,
  poolsHavePreferNoSchedule: boolean,
): { constraints: PodConstraints; step: RelaxationStep } | undefined {
  const next = (patch: Partial<PodConstraints>, step: RelaxationStep) => ({
    constraints: { ...c, ...patch, relaxations: c.relaxations + 1 },
    step,
  });
  if (c.requiredNodeTerms.length > 1) {
    return next({ requiredNodeTerms: c.requiredNodeTerms.slice(1) }, 'required node affinity term');
  }
  if (c.preferredAffinity.length > 0) {
    return next({ preferredAffinity: c.preferredAffinity.slice(1) }, 'preferred pod affinity term');
  }
  if (c.preferredAntiAffinity.length > 0) {
    return next(
      { preferredAntiAffinity: c.preferredAntiAffinity.slice(1) },
      'preferred pod anti-affinity term',
    );
  }
  if (c.preferredNodeTerms.length > 0) {
    return next(
      { preferredNodeTerms: c.preferredNodeTerms.slice(1) },
      'preferred node affinity term',
    );
  }
  const anyway = c.topologySpread.findIndex((s) => s.whenUnsatisfiable === 'ScheduleAnyway');
  if (anyway >= 0) {
    return next(
      { topologySpread: c.topologySpread.filter((_, i) => i !== anyway) },
      'ScheduleAnyway topology spread constraint',
    );
  }
  if (poolsHavePreferNoSchedule && !c.toleratesPreferNoSchedule) {
    return next({ toleratesPreferNoSchedule: true }, 'PreferNoSchedule taints');
  }
  return undefined;
}
