/**
 * An independent re-check of a scheduling result: every pod's constraints are verified on the
 * final assignment, without reusing the scheduler's incremental state. Tests run it after every
 * solve, so a scheduler bug that places a pod wrongly fails loudly even when the test's own
 * assertions look elsewhere.
 */
import type {
  LabelSelector,
  NodePool,
  Pod,
  PodAffinityTerm,
  Taint,
  TopologySpreadConstraint,
} from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import {
  daemonPod,
  existingNodeDaemonOverhead,
  groupDaemonsByInstanceType,
  isDaemonSetPod,
} from '../daemon-overhead.js';
import { anyHostPortConflict, podHostPorts, type HostPort } from '../host-ports.js';
import { compileLabelSelector } from '../label-selector.js';
import { checkMinValues } from '../min-values.js';
import { nodePoolTemplate, parseLimits } from '../node-pool-template.js';
import { podRequests } from '../pod-requests.js';
import { allowUndefinedWellKnownLabels, Requirements } from '../requirements.js';
import { addResources, fits, subtractResources, type ResourceList } from '../resources.js';
import type { PreferencePolicy } from '../pod-constraints.js';
import type {
  ExistingNodeInput,
  NewNodeClaim,
  SchedulerInstanceType,
  SchedulingResults,
} from '../scheduler-types.js';
import { tolerates } from '../taints.js';
import { VolumeUsage, type PodVolumes } from '../volumes.js';

/** What the result was computed from. */
export interface ValidationInput {
  readonly nodePools: readonly NodePool[];
  readonly instanceTypes: ReadonlyMap<string, readonly SchedulerInstanceType[]>;
  readonly existingNodes?: readonly ExistingNodeInput[];
  readonly daemonSetPods?: readonly Pod[];
  /** The pods given to `solve`. */
  readonly pods: readonly Pod[];
  readonly preferencePolicy?: PreferencePolicy;
  readonly minValuesPolicy?: 'Strict' | 'BestEffort';
  /** The provider's well-known labels the scheduler was given (see `SchedulerOptions`). */
  readonly wellKnownLabels?: Iterable<string>;
  /** The pods' volumes the scheduler was given (see `SchedulerOptions.podVolumes`). */
  readonly podVolumes?: (pod: Pod) => PodVolumes | undefined;
}

/** One node of the final assignment (a new node claim or an existing node). */
interface FinalNode {
  readonly label: string;
  /** For each key: the values the node may carry (a single value once decided). */
  readonly requirements: Requirements;
  readonly taints: readonly Taint[];
  readonly newPods: readonly Pod[];
  readonly boundPods: readonly Pod[];
  /** The values of a topology key the node may end up with (see `claimDomains`), sorted. */
  readonly domains: (key: string) => readonly string[];
}

function hardTaintTolerated(pod: Pod, taint: Taint): boolean {
  if (taint.effect === 'PreferNoSchedule') return true;
  return (pod.spec?.tolerations ?? []).some((t) => tolerates(t, taint));
}

function ns(p: Pod): string {
  return p.metadata?.namespace ?? 'default';
}

function name(p: Pod): string {
  return `${ns(p)}/${p.metadata?.name ?? '?'}`;
}

/** The node-affinity alternatives of a pod (node selector folded into each required OR-term). */
function podAlternatives(p: Pod): Requirements[] {
  const selector = Requirements.fromLabels(p.spec?.nodeSelector ?? {});
  const terms =
    p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [selector];
  return terms.map((t) =>
    selector.intersection(Requirements.fromNodeSelectorRequirements(t.matchExpressions ?? [])),
  );
}

/** The spread constraint's selector with `matchLabelKeys` folded in for the pod's values. */
function spreadSelector(tsc: TopologySpreadConstraint, p: Pod): LabelSelector | undefined {
  const labels = p.metadata?.labels ?? {};
  const extra = (tsc.matchLabelKeys ?? [])
    .filter((k) => labels[k] !== undefined)
    .map((k) => ({ key: k, operator: 'In', values: [labels[k] as string] }));
  if (tsc.labelSelector === undefined || extra.length === 0) return tsc.labelSelector;
  return {
    ...tsc.labelSelector,
    matchExpressions: [...(tsc.labelSelector.matchExpressions ?? []), ...extra],
  };
}

/** The node's single domain of `key`, or undefined while it may still end up in several (or none). */
function decided(node: FinalNode, key: string): string | undefined {
  const d = node.domains(key);
  return d.length === 1 ? d[0] : undefined;
}

/**
 * The domains of each key a new node claim may still launch in: the values its requirements
 * allow that one of its instance-type options and one of that option's available offerings
 * (meeting the claim's requirements) allow too. A claim that leaves its zone open may launch in
 * every zone its options offer, so a required topology rule has to hold in each of them. A key
 * that stays open everywhere is a label the node will not carry: no domain.
 */
function claimDomains(claim: NewNodeClaim, hostname: string): (key: string) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  return (key) => {
    if (key === Labels.Hostname) return [hostname];
    let out = cache.get(key);
    if (out === undefined) {
      const values = new Set<string>();
      const r = claim.requirements.get(key);
      for (const it of claim.instanceTypeOptions) {
        if (!claim.requirements.isIntersecting(it.requirements)) continue;
        const withType = r.intersection(it.requirements.get(key));
        for (const o of it.offerings) {
          if (!o.available || !claim.requirements.isIntersecting(o.requirements)) continue;
          const v = withType.intersection(o.requirements.get(key));
          if (!v.complement) for (const x of v.valuesList()) values.add(x);
        }
      }
      out = [...values].sort();
      cache.set(key, out);
    }
    return out;
  };
}

/**
 * Re-checks every pod on the result: each pod appears exactly once (on a node claim, an existing
 * node, or in podErrors); taints (PreferNoSchedule excepted); node selector and required node
 * affinity (some OR-term) against the node's requirements and every instance-type option;
 * volume topology (some alternative allows every domain the node may be in) and CSI attach
 * limits of existing nodes; no In requirement with fewer values than its minValues; the
 * resources of every option (pods plus that option's daemonset overhead) and of existing nodes;
 * host ports; required pod anti-affinity (both directions) and affinity; DoNotSchedule topology
 * spread on decided domains for constraints shared by every pod they select; NodePool limits
 * (largest option per claim) and minValues. Topology is judged on the domains each new node
 * claim may still launch in (its requirements met by an option's available offering), never on
 * one guessed domain: anti-affinity fails when two nodes may share a domain, affinity when some
 * domain the pod may land in holds no matching pod for sure, a spread when a pod's domain is
 * not decided.
 * @throws Error listing every violation found.
 */
export function validateAssignment(results: SchedulingResults, input: ValidationInput): void {
  const problems: string[] = [];
  const allowUndefined = allowUndefinedWellKnownLabels(input.wellKnownLabels);
  const seen = new Map<Pod, string>();
  const note = (p: Pod, where: string) => {
    const before = seen.get(p);
    if (before !== undefined) problems.push(`pod ${name(p)} placed twice: ${before} and ${where}`);
    seen.set(p, where);
  };
  const daemons = (input.daemonSetPods ?? []).map((p) => daemonPod(p));
  const nodes: FinalNode[] = [];

  // New node claims.
  results.newNodeClaims.forEach((claim, i) => {
    const label = `nodeclaim[${i}] (nodepool ${claim.nodePoolName})`;
    for (const p of claim.pods) note(p, label);
    const pool = input.nodePools.find((x) => x.metadata.name === claim.nodePoolName);
    if (pool === undefined) {
      problems.push(`${label}: unknown nodepool`);
      return;
    }
    const template = nodePoolTemplate(pool, input.instanceTypes.get(claim.nodePoolName) ?? []);
    if (!template.requirements.isCompatible(claim.requirements, allowUndefined)) {
      problems.push(
        `${label}: requirements ${claim.requirements.toString()} leave the nodepool's ${template.requirements.toString()}`,
      );
    }
    if (claim.instanceTypeOptions.length === 0) problems.push(`${label}: no instance type options`);
    const { groupOf, groups } = groupDaemonsByInstanceType(
      daemons,
      template,
      claim.instanceTypeOptions.map((it) => it.requirements),
      allowUndefined,
    );
    const podSum = addResources(...claim.pods.map((p) => podRequests(p)));
    claim.instanceTypeOptions.forEach((it, j) => {
      if (!claim.requirements.isIntersecting(it.requirements)) {
        problems.push(`${label}: option ${it.name} does not meet the claim requirements`);
      }
      if (
        !it.offerings.some((o) => o.available && claim.requirements.isIntersecting(o.requirements))
      ) {
        problems.push(
          `${label}: option ${it.name} has no available offering meeting the claim requirements`,
        );
      }
      const overhead = groups[groupOf[j] as number]?.overhead ?? {};
      if (!fits(addResources(podSum, overhead), it.allocatable())) {
        problems.push(`${label}: pods plus daemonset overhead do not fit option ${it.name}`);
      }
      const daemonPorts = groups[groupOf[j] as number]?.hostPorts ?? [];
      for (const p of claim.pods) {
        if (anyHostPortConflict(podHostPorts(p), daemonPorts)) {
          problems.push(
            `${label}: pod ${name(p)} host ports conflict with daemonsets on option ${it.name}`,
          );
        }
      }
      for (const p of claim.pods) {
        if (!podAlternatives(p).some((alt) => it.requirements.isIntersecting(alt))) {
          problems.push(`${label}: option ${it.name} does not meet pod ${name(p)}'s node affinity`);
        }
      }
    });
    if (
      (input.minValuesPolicy ?? 'Strict') === 'Strict' &&
      !checkMinValues(claim.requirements, claim.instanceTypeOptions).satisfied
    ) {
      problems.push(`${label}: options do not satisfy minValues`);
    }
    // Under either policy the claim must be one the API server accepts: an In requirement
    // never asks for more distinct values than it lists.
    for (const r of claim.requirements) {
      if (!r.complement && r.minValues !== undefined && r.valuesList().length < r.minValues)
        problems.push(`${label}: ${r.toString()} lists fewer values than its minValues`);
    }
    nodes.push({
      label,
      requirements: claim.requirements,
      taints: pool.spec.template.spec.taints ?? [],
      newPods: claim.pods,
      boundPods: [],
      domains: claimDomains(claim, `nodeclaim-${i}`),
    });
  });

  // Existing nodes.
  const placedOn = new Map(results.existingNodes.map((e) => [e.name, e.pods]));
  for (const n of input.existingNodes ?? []) {
    const newPods = placedOn.get(n.name) ?? [];
    placedOn.delete(n.name);
    for (const p of newPods) note(p, `existing node ${n.name}`);
    const labels: Readonly<Record<string, string>> = { [Labels.Hostname]: n.name, ...n.labels };
    const reqs = Requirements.fromLabels(labels);
    const bound = (n.pods ?? []).filter(
      (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
    );
    const used = addResources(
      ...bound.map((p) => podRequests(p)),
      ...newPods.map((p) => podRequests(p)),
    );
    const daemonUsed = addResources(...bound.filter(isDaemonSetPod).map((p) => podRequests(p)));
    const daemon = existingNodeDaemonOverhead(daemons, {
      requirements: reqs,
      taints: n.taints ?? [],
      pods: bound,
      boundDaemonRequests: daemonUsed,
    });
    if (newPods.length > 0 && !fits(addResources(used, daemon.overhead), n.allocatable)) {
      problems.push(`existing node ${n.name}: pods plus daemonset overhead exceed allocatable`);
    }
    if (newPods.length > 0 && n.volumeLimits !== undefined && input.podVolumes !== undefined) {
      const usage = new VolumeUsage(n.volumeLimits);
      for (const p of bound) usage.add(input.podVolumes(p)?.attachments ?? []);
      const added = newPods.flatMap((p) => input.podVolumes?.(p)?.attachments ?? []);
      const exceeded = usage.exceeds(added);
      if (exceeded !== undefined) problems.push(`existing node ${n.name}: ${exceeded}`);
    }
    for (const p of newPods) {
      if (!podAlternatives(p).some((alt) => reqs.isCompatible(alt))) {
        problems.push(
          `existing node ${n.name}: pod ${name(p)}'s node affinity does not match the node labels`,
        );
      }
    }
    nodes.push({
      label: `existing node ${n.name}`,
      requirements: reqs,
      taints: n.taints ?? [],
      newPods,
      boundPods: bound,
      // A node's labels are decided; one without the key is in no domain of it.
      domains: (key) => {
        const v = labels[key];
        return v === undefined ? [] : [v];
      },
    });
  }
  for (const name of placedOn.keys()) problems.push(`pods placed on unknown existing node ${name}`);
  for (const p of results.podErrors.keys()) note(p, 'podErrors');
  for (const p of input.pods)
    if (!seen.has(p)) problems.push(`pod ${name(p)} is neither scheduled nor in podErrors`);

  // Per node: taints, node affinity on claim requirements, host ports.
  for (const node of nodes) {
    const ports: HostPort[] = node.boundPods.flatMap((p) => podHostPorts(p));
    for (const p of node.newPods) {
      for (const taint of node.taints) {
        if (!hardTaintTolerated(p, taint))
          problems.push(`${node.label}: pod ${name(p)} does not tolerate taint ${taint.key}`);
      }
      if (!podAlternatives(p).some((alt) => node.requirements.isCompatible(alt, allowUndefined))) {
        problems.push(
          `${node.label}: requirements ${node.requirements.toString()} do not meet pod ${name(p)}'s node affinity`,
        );
      }
      // Volumes: every domain the node may still end up in is one some alternative allows.
      const alternatives = input.podVolumes?.(p)?.requirements ?? [];
      if (
        alternatives.length > 0 &&
        !alternatives.some((alt) =>
          alt.values().every((r) => {
            const domains = node.domains(r.key);
            return domains.length > 0 && domains.every((v) => r.has(v));
          }),
        )
      ) {
        problems.push(
          `${node.label}: pod ${name(p)}'s volumes do not allow every domain the node may be in`,
        );
      }
      const mine = podHostPorts(p);
      if (anyHostPortConflict(mine, ports))
        problems.push(`${node.label}: pod ${name(p)} host port conflict`);
      ports.push(...mine);
    }
  }

  // Topology over all pods (bound and new).
  const all: { pod: Pod; node: FinalNode; isNew: boolean }[] = [];
  for (const node of nodes) {
    for (const p of node.boundPods) all.push({ pod: p, node, isNew: false });
    for (const p of node.newPods) all.push({ pod: p, node, isNew: true });
  }
  const termSelects = (owner: Pod, term: PodAffinityTerm, other: Pod): boolean => {
    const namespaces =
      term.namespaces && term.namespaces.length > 0 ? term.namespaces : [ns(owner)];
    if (term.namespaceSelector === undefined || term.namespaceSelector === null) {
      if (!namespaces.includes(ns(other))) return false;
    }
    return compileLabelSelector(term.labelSelector).matches(other.metadata?.labels);
  };
  // Nodes that may end up in one domain: a claim counts in every zone it may still launch in.
  const overlap = (a: FinalNode, b: FinalNode, key: string): boolean => {
    const vb = b.domains(key);
    return a.domains(key).some((v) => vb.includes(v));
  };
  for (const owner of all) {
    const anti =
      owner.pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ??
      [];
    for (const term of anti) {
      for (const other of all) {
        if (other === owner || (!owner.isNew && !other.isNew)) continue;
        if (!termSelects(owner.pod, term, other.pod)) continue;
        if (overlap(owner.node, other.node, term.topologyKey)) {
          problems.push(
            `pod ${name(owner.pod)} (${owner.node.label}) and pod ${name(other.pod)} (${other.node.label}) share a ${term.topologyKey} domain against required anti-affinity`,
          );
        }
      }
    }
    if (!owner.isNew) continue;
    const affinity =
      owner.pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    for (const term of affinity) {
      // Every domain the node may still end up in must hold a matching pod (upstream narrows an
      // undecided node to the occupied domains), unless the pod matches itself (bootstrap).
      const mine = owner.node.domains(term.topologyKey);
      if (termSelects(owner.pod, term, owner.pod)) continue;
      const ok =
        mine.length > 0 &&
        mine.every((v) =>
          all.some(
            (o) =>
              o !== owner &&
              termSelects(owner.pod, term, o.pod) &&
              decided(o.node, term.topologyKey) === v,
          ),
        );
      if (!ok) {
        problems.push(
          `pod ${name(owner.pod)} on ${owner.node.label} has no pod matching its required affinity in every ${term.topologyKey} domain it may land in`,
        );
      }
    }
  }

  // Topology spread for constraints every selected pod shares (the invariant then holds at the end).
  const spreadChecked = new Set<string>();
  for (const entry of all) {
    if (!entry.isNew) continue;
    for (const tsc of entry.pod.spec?.topologySpreadConstraints ?? []) {
      if (tsc.whenUnsatisfiable !== 'DoNotSchedule') continue;
      const selector = compileLabelSelector(spreadSelector(tsc, entry.pod));
      const id = `${ns(entry.pod)}|${tsc.topologyKey}|${selector.key}|${tsc.maxSkew}`;
      const domain = decided(entry.node, tsc.topologyKey);
      if (domain === undefined) {
        problems.push(
          `pod ${name(entry.pod)} with topology spread on ${tsc.topologyKey} sits on ${entry.node.label} whose domain is undecided`,
        );
        continue;
      }
      if (spreadChecked.has(id)) continue;
      spreadChecked.add(id);
      const members = all.filter(
        (o) => ns(o.pod) === ns(entry.pod) && selector.matches(o.pod.metadata?.labels),
      );
      const shared = members.every(
        (o) =>
          o.isNew &&
          (o.pod.spec?.topologySpreadConstraints ?? []).some(
            (c) =>
              c.topologyKey === tsc.topologyKey &&
              c.maxSkew === tsc.maxSkew &&
              c.whenUnsatisfiable === 'DoNotSchedule' &&
              compileLabelSelector(spreadSelector(c, o.pod)).key === selector.key &&
              c.minDomains === undefined,
          ) &&
          JSON.stringify(o.pod.spec?.nodeSelector ?? {}) ===
            JSON.stringify(entry.pod.spec?.nodeSelector ?? {}) &&
          JSON.stringify(o.pod.spec?.affinity?.nodeAffinity ?? {}) ===
            JSON.stringify(entry.pod.spec?.affinity?.nodeAffinity ?? {}),
      );
      if (!shared) continue;
      const counts = new Map<string, number>();
      for (const o of members) {
        const d = decided(o.node, tsc.topologyKey);
        if (d !== undefined) counts.set(d, (counts.get(d) ?? 0) + 1);
      }
      const max = Math.max(...counts.values());
      if (tsc.topologyKey === Labels.Hostname) {
        if (max > tsc.maxSkew)
          problems.push(
            `topology spread on hostname (${selector.key}): a node holds ${max} > maxSkew ${tsc.maxSkew}`,
          );
        continue;
      }
      // Eligible domains: what the pools' instance types can offer and the pods' affinity allows.
      const alternatives = podAlternatives(entry.pod);
      const eligible = new Set<string>();
      for (const pool of input.nodePools) {
        const t = nodePoolTemplate(pool, input.instanceTypes.get(pool.metadata.name ?? '') ?? []);
        if ((t.taints ?? []).some((x) => !hardTaintTolerated(entry.pod, x))) continue;
        for (const it of t.instanceTypes) {
          for (const o of it.offerings) {
            if (!o.available) continue;
            const r = t.requirements
              .intersection(it.requirements)
              .intersection(o.requirements)
              .get(tsc.topologyKey);
            if (r.complement) continue;
            for (const v of r.valuesList())
              if (alternatives.some((a) => a.get(tsc.topologyKey).has(v))) eligible.add(v);
          }
        }
      }
      for (const d of counts.keys()) eligible.add(d);
      const min = Math.min(...[...eligible].map((d) => counts.get(d) ?? 0));
      if (max - min > tsc.maxSkew) {
        problems.push(
          `topology spread on ${tsc.topologyKey} (${selector.key}): skew ${max - min} > maxSkew ${tsc.maxSkew} (${JSON.stringify(Object.fromEntries(counts))})`,
        );
      }
    }
  }

  // NodePool limits: existing capacity plus the largest option of each new claim.
  for (const pool of input.nodePools) {
    if (pool.spec.limits === undefined) continue;
    const limits = parseLimits(pool.spec.limits);
    let used: ResourceList = {};
    for (const n of input.existingNodes ?? []) {
      if (n.nodePoolName === pool.metadata.name)
        used = addResources(used, n.capacity ?? n.allocatable, { nodes: 1 });
    }
    for (const c of results.newNodeClaims) {
      if (c.nodePoolName !== pool.metadata.name) continue;
      const max: ResourceList = {};
      for (const it of c.instanceTypeOptions) {
        for (const [k, v] of Object.entries(it.capacity)) max[k] = Math.max(max[k] ?? 0, v);
      }
      used = addResources(used, max, { nodes: 1 });
    }
    const over = subtractResources(limits, used);
    for (const [k, v] of Object.entries(over)) {
      const before = subtractResources(
        limits,
        addResources(
          ...(input.existingNodes ?? [])
            .filter((n) => n.nodePoolName === pool.metadata.name)
            .map((n) => addResources(n.capacity ?? n.allocatable, { nodes: 1 })),
        ),
      );
      if (v < 0 && (before[k] ?? 0) >= 0)
        problems.push(`nodepool ${pool.metadata.name}: limit on ${k} exceeded by ${-v}`);
    }
  }

  if (problems.length > 0) {
    throw new Error(
      `invalid scheduling result (${problems.length} problems):\n  ${problems.slice(0, 50).join('\n  ')}`,
    );
  }
}
