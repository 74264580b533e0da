/**
 * DaemonSet overhead: which DaemonSets would run on a node of a given
 * NodePool template and instance type, grouped by the exact set of compatible DaemonSets, with
 * the summed requests and host ports of each group; and the overhead still to come on an
 * existing node.
 */
import type { Pod, Taint } from '@karpenter-ts/api';
import { podHostPorts, type HostPort } from './host-ports.js';
import { podRequests } from './pod-requests.js';
import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from './requirements.js';
import { addResources, subtractResources, type ResourceList } from './resources.js';
import { toleratesAll } from './taints.js';

/** A DaemonSet pod as the overhead computation reads it. */
export interface DaemonPod {
  readonly pod: Pod;
  readonly requests: ResourceList;
  readonly hostPorts: readonly HostPort[];
  /** One alternative per required node-affinity OR-term (node selector folded into each). */
  readonly alternatives: readonly Requirements[];
}

/** Daemons sharing one compatibility set, with their summed requests and ports. */
export interface DaemonGroup {
  /** Indices into the daemon list. */
  readonly daemons: readonly number[];
  readonly overhead: ResourceList;
  readonly hostPorts: readonly HostPort[];
}

/**
 * Reads a DaemonSet pod: requests (limits fill in missing requests, as the API server would for
 * a pod built from a template), host ports, and its node-affinity alternatives.
 * Throws RequirementError / ResourceListError for malformed specs.
 */
export function daemonPod(pod: Pod): DaemonPod {
  const selector = Requirements.fromLabels(pod.spec?.nodeSelector ?? {});
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [];
  const alternatives =
    terms.length === 0
      ? [selector]
      : terms.map((t) =>
          selector.intersection(
            Requirements.fromNodeSelectorRequirements(t.matchExpressions ?? []),
          ),
        );
  return { pod, requests: podRequests(pod), hostPorts: podHostPorts(pod), alternatives };
}

/** DaemonSets tolerate PreferNoSchedule taints for overhead purposes (upstream auto-tolerates them). */
function hardTaints(taints: readonly Taint[]): Taint[] {
  return taints.filter((t) => t.effect !== 'PreferNoSchedule');
}

/**
 * Groups a template's instance types by the set of DaemonSets that would run on them: a daemon
 * counts when it tolerates the template's taints and one of its alternatives is compatible with
 * the template requirements (the keys in `allowUndefined`, the well-known labels, may be
 * undefined there) and intersects the instance type's requirements.
 * @param allowUndefined default Karpenter's well-known labels; pass
 *   `allowUndefinedWellKnownLabels(providerLabels)` to add a provider's.
 * @returns for each instance type (same order) the index of its group, and the groups.
 */
export function groupDaemonsByInstanceType(
  daemons: readonly DaemonPod[],
  template: { requirements: Requirements; taints: readonly Taint[] },
  instanceTypeRequirements: readonly Requirements[],
  allowUndefined: ReadonlySet<string> = WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
): { groupOf: number[]; groups: DaemonGroup[] } {
  const taints = hardTaints(template.taints);
  // Daemons with the same alternatives (copies of one DaemonSet, or many alike) form one class,
  // tested once per instance type: the test costs classes x instance types, not daemons x
  // instance types, which thousands of DaemonSets on hundreds of types made minutes long.
  const classOf = new Map<string, number>();
  const classes: { alternatives: readonly Requirements[]; members: number[] }[] = [];
  daemons.forEach((d, i) => {
    if (toleratesAll(d.pod.spec?.tolerations, taints) !== undefined) return;
    const key = alternativesKey(d);
    let c = classOf.get(key);
    if (c === undefined) {
      c = classes.length;
      classOf.set(key, c);
      classes.push({
        alternatives: d.alternatives.filter((a) =>
          template.requirements.isCompatible(a, allowUndefined),
        ),
        members: [],
      });
    }
    classes[c]!.members.push(i);
  });
  const candidates = classes.filter((c) => c.alternatives.length > 0);
  const groups: DaemonGroup[] = [];
  const byKey = new Map<string, number>();
  const groupOf = instanceTypeRequirements.map((itReqs) => {
    const matched = candidates.filter((c) => c.alternatives.some((a) => a.isIntersecting(itReqs)));
    const key = matched.map((c) => c.members[0]).join(',');
    let g = byKey.get(key);
    if (g === undefined) {
      // Members in daemon order, so the overhead sums in the same order for any grouping.
      const members = matched.flatMap((c) => c.members).sort((a, b) => a - b);
      g = groups.length;
      byKey.set(key, g);
      groups.push({
        daemons: members,
        overhead: addResources({}, ...members.map((m) => (daemons[m] as DaemonPod).requests)),
        hostPorts: members.flatMap((m) => (daemons[m] as DaemonPod).hostPorts),
      });
    }
    return g;
  });
  return { groupOf, groups };
}

const ALTERNATIVES_KEYS = new WeakMap<DaemonPod, string>();

/** A daemon's node-affinity alternatives as text: daemons with equal text run on the same nodes. */
function alternativesKey(d: DaemonPod): string {
  let key = ALTERNATIVES_KEYS.get(d);
  if (key === undefined) {
    key = JSON.stringify(d.alternatives.map((a) => a.toNodeSelectorRequirements()));
    ALTERNATIVES_KEYS.set(d, key);
  }
  return key;
}

/** Whether a pod is controlled by a DaemonSet. */
export function isDaemonSetPod(pod: Pod): boolean {
  return (pod.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === 'DaemonSet' && o.controller !== false,
  );
}

/**
 * Overhead still to come on an existing node: requests of compatible daemons (tolerating the
 * node's taints, an alternative compatible with its labels) minus the requests of DaemonSet pods
 * already bound there, floored at zero per resource.
 */
export function existingNodeDaemonOverhead(
  daemons: readonly DaemonPod[],
  node: {
    requirements: Requirements;
    taints: readonly Taint[];
    pods: readonly Pod[];
    boundDaemonRequests: ResourceList;
  },
): { overhead: ResourceList; hostPorts: HostPort[] } {
  const taints = hardTaints(node.taints);
  let total: ResourceList = {};
  const hostPorts: HostPort[] = [];
  for (const d of daemons) {
    if (toleratesAll(d.pod.spec?.tolerations, taints) !== undefined) continue;
    if (!d.alternatives.some((a) => node.requirements.isCompatible(a))) continue;
    total = addResources(total, d.requests);
    hostPorts.push(...d.hostPorts);
  }
  const remaining = subtractResources(total, node.boundDaemonRequests);
  const overhead: ResourceList = {};
  for (const [k, v] of Object.entries(remaining)) overhead[k] = Math.max(0, v);
  // A daemon already running has its ports in use through its bound pod, so only count ports when
  // no daemon pod is bound (a conservative approximation).
  return { overhead, hostPorts: node.pods.some(isDaemonSetPod) ? [] : hostPorts };
}
