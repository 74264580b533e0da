/**
 * Topology for one scheduling batch (upstream `topology.go`): the
 * registry of de-duplicated topology groups, their counts, and the per-attempt evaluation that
 * turns a pod's spread, affinity and anti-affinity constraints into requirements on a candidate
 * node (or a failure reason).
 *
 * Deliberate differences from upstream, both deterministic improvements:
 * - ties between equally good domains go to the smallest domain name, not Go map order;
 * - a pod's groups on the same key narrow the candidate one after another (sets first, the
 *   spread choice last), so a zonal spread and a zonal anti-affinity agree on a domain instead of
 *   failing when their independent choices differ.
 */
import type {
  LabelSelector,
  PodAffinityTerm,
  Taint,
  Toleration,
  TopologySpreadConstraint,
} from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { compileLabelSelector, type LabelMatcher } from '../label-selector.js';
import { Requirement } from '../requirement.js';
import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from '../requirements.js';
import type { PodConstraints } from '../pod-constraints.js';
import type { TopologyDomains } from './domains.js';
import type { TopologyBaseline } from './topology-baseline.js';
import {
  domainEligible,
  nodeFilterMatches,
  TopologyGroup,
  type NamespaceSet,
  type TopologyGroupKind,
  type TopologyNodeFilter,
} from './topology-group.js';

/** The identity of a pod as topology sees it. */
export interface TopologyPod {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A pod counted by the topology: where it runs and which required anti-affinity terms it owns. */
interface Placement {
  readonly pod: TopologyPod;
  readonly requirements: Requirements;
  readonly taints: readonly Taint[];
  /** On an in-flight node claim, whose undecided keys may still take any known domain. */
  readonly inFlight: boolean;
  /** Hashes of the inverse groups of the pod's required anti-affinity terms. */
  readonly inverseHashes: readonly string[];
}

/** One group a scheduling attempt must satisfy, with what is fixed for the whole attempt. */
export interface TopologyCheck {
  readonly group: TopologyGroup;
  /** The pod's own (strict) requirement on the group's key; `Exists` for inverse groups. */
  readonly podDomains: Requirement;
  /** Whether the pod would count towards the group itself. */
  readonly selfSelecting: boolean;
  /** Spread: the global minimum count over eligible domains. */
  readonly min: number;
  /** Affinity: occupied domains the pod may use (sorted); empty means bootstrap or fail. */
  readonly occupied: readonly string[];
}

/** The topology side of one scheduling attempt. */
export interface AttemptTopology {
  readonly checks: readonly TopologyCheck[];
  /** Set when no node anywhere can satisfy a check (the attempt fails without trying nodes). */
  readonly failure?: string;
  /** Checks on `kubernetes.io/hostname`, which decide per node without narrowing anything. */
  readonly hostnameChecks: readonly TopologyCheck[];
}

const HOSTNAME = Labels.Hostname;
const NO_CHECKS: AttemptTopology = { checks: [], hostnameChecks: [] };
const NO_DOMAINS: readonly string[] = [];
const NO_REQUIREMENTS: readonly Requirement[] = [];
const NO_HASHES: readonly string[] = [];
const NO_DOMAIN_CHECKS: readonly TopologyCheck[] = [];
const NO_NODES: readonly number[] = [];

/** Affinity: the group's occupied domains the pod may use, sorted. */
function occupiedWithin(g: TopologyGroup, podDomains: Requirement): readonly string[] {
  const occupied = g.occupiedDomains();
  if (occupied.length === 0) return NO_DOMAINS;
  const out: string[] = [];
  for (const d of occupied) if (podDomains.has(d)) out.push(d);
  if (out.length > 1) out.sort();
  return out;
}

/** Orders checks so set-valued narrowing (affinity, anti-affinity) runs before the spread choice. */
const KIND_ORDER: Record<TopologyGroupKind, number> = {
  'anti-affinity': 0,
  affinity: 1,
  spread: 2,
};

/** The topology registry and counts of one batch. */
export class Topology {
  private readonly groups: TopologyGroup[] = [];
  private readonly byHash = new Map<string, TopologyGroup>();
  /**
   * Non-inverse groups, which count pods their selector matches, split for `record`: those whose
   * selector is one `key=value` pair, indexed by key and value (a pod reaches only the groups of
   * its own label values), and the rest.
   */
  private readonly countingByLabel = new Map<string, Map<string, TopologyGroup[]>>();
  /** The keys and maps of `countingByLabel` as arrays, for iteration without allocation. */
  private readonly countingKeys: string[] = [];
  private readonly countingMaps: Map<string, TopologyGroup[]>[] = [];
  /** Scratch lists of `narrow`. */
  private readonly narrowKeys: string[] = [];
  private readonly narrowed: Requirement[] = [];
  /** Shared single-value requirements (see `single`). */
  private readonly singles = new Map<string, Map<string, Requirement>>();
  private readonly countingOther: TopologyGroup[] = [];
  /** Inverse groups, which keep matching pods out of their owners' domains. */
  private readonly inverseGroups: TopologyGroup[] = [];
  /** Groups tracking free hostnames (hostname anti-affinity, inverse included). */
  private readonly hostnameAntiGroups: TopologyGroup[] = [];
  private readonly placements: Placement[] = [];
  /** A pod's own groups, per constraints object (the unrelaxed constraints are cached per pod). */
  private readonly groupCache = new WeakMap<PodConstraints, TopologyGroup[]>();
  /** The existing nodes' bound pods, counted from there (see `seedExisting`). */
  private base: TopologyBaseline | undefined;
  /** The baseline's nodes this batch leaves out. */
  private removed: readonly number[] = NO_NODES;

  constructor(
    readonly domains: TopologyDomains,
    /**
     * Group identities per pod and term, shared by the batches of one scheduler (a pod's groups
     * are the same in every batch; only their counts differ).
     */
    private readonly specs: TopologyGroupSpecs = new TopologyGroupSpecs(),
    /**
     * Keys a spread's node filter may require that a node's requirements leave undefined
     * (Karpenter's and the provider's well-known labels).
     */
    private readonly allowUndefined: ReadonlySet<string> = WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  ) {}

  /** Number of groups created so far. */
  get groupCount(): number {
    return this.groups.length;
  }

  /**
   * Counts a pod already running (or just placed) on a node with these requirements and taints,
   * and registers the inverse groups of its required anti-affinity terms.
   * @param inFlight the node is an in-flight node claim: a key it leaves open (a complement
   *   requirement) is undecided, not absent, and anti-affinity counts the pod in every known
   *   domain the requirement allows (see `TopologyGroup.record`).
   */
  record(
    pod: TopologyPod,
    requiredAntiAffinity: readonly PodAffinityTerm[],
    requirements: Requirements,
    taints: readonly Taint[],
    inFlight: boolean,
    memo?: TopologyMemo,
  ): void {
    const labels = pod.labels;
    for (let i = 0; i < this.countingKeys.length; i++) {
      const value = labels[this.countingKeys[i] as string];
      if (value === undefined) continue;
      const groups = (this.countingMaps[i] as Map<string, TopologyGroup[]>).get(value);
      // these groups' selectors are exactly this label pair: only the namespace is left to check
      if (groups !== undefined) this.recordIn(groups, pod, requirements, taints, inFlight, true);
    }
    this.recordIn(this.countingOther, pod, requirements, taints, inFlight, false);
    let inverseHashes: readonly string[] = NO_HASHES;
    if (requiredAntiAffinity.length > 0) {
      let groups: readonly TopologyGroup[];
      if (memo !== undefined && memo.inverseOf === this && memo.inverseGroups !== undefined) {
        groups = memo.inverseGroups;
      } else {
        const specs = (memo?.inverseSpecs ??
          requiredAntiAffinity.map((term) => this.specs.inverse(pod, term))) as GroupSpec[];
        groups = specs.map((spec) => this.group(spec));
        if (memo !== undefined) {
          memo.inverseSpecs = specs;
          memo.inverseGroups = groups;
          memo.inverseOf = this;
        }
      }
      const hashes: string[] = [];
      for (const g of groups) {
        this.recordOne(g, requirements, inFlight);
        hashes.push(g.hash);
      }
      inverseHashes = hashes;
    }
    this.placements.push({ pod, requirements, taints, inFlight, inverseHashes });
  }

  /**
   * Counts the bound pods of the baseline's nodes, except `removed` (node indices), exactly as
   * `record` of each of them in node order, before any pod of the batch, would: the inverse
   * groups of their required anti-affinity terms are created in the order their first remaining
   * owner comes, a hostname one knowing the hostnames registered before that owner's node
   * (`templateHostnames`, then the earlier nodes' own), and every group created later counts
   * them from the baseline rather than pod by pod. Call once, on a new Topology whose domains
   * hold the templates' domains and those of the remaining nodes.
   */
  seedExisting(
    base: TopologyBaseline,
    removed: readonly number[],
    templateHostnames: readonly string[],
  ): void {
    this.base = base;
    this.removed = removed;
    const removedSet = new Set(removed);
    const order: { at: number; node: number; spec: GroupSpec }[] = [];
    for (const owners of base.inverseOwners()) {
      for (let i = 0; i < owners.nodes.length; i++) {
        const node = owners.nodes[i] as number;
        if (removedSet.has(node)) continue;
        order.push({ at: owners.sequence[i] as number, node, spec: owners.spec });
        break;
      }
    }
    order.sort((a, b) => a.at - b.at);
    for (const { node, spec } of order) {
      this.group(spec, () => {
        const nodes = base.hostnamesBefore(node, removedSet);
        if (templateHostnames.length === 0) return nodes;
        return [...new Set([...templateHostnames, ...nodes])].sort();
      });
    }
  }

  /**
   * Prepares the checks of one attempt: the pod's spread constraints, pod affinity and
   * anti-affinity terms (required, plus preferred ones the constraints still carry), and the
   * inverse anti-affinity of placed pods whose terms select this pod. Fails fast (with `failure`)
   * when no known domain can satisfy a check.
   * @param strict the pod's strict requirements (node selector and required node affinity).
   */
  prepare(
    pod: TopologyPod,
    constraints: PodConstraints,
    strict: Requirements,
    memo?: TopologyMemo,
  ): AttemptTopology {
    let groups: TopologyGroup[] | undefined;
    if (memo !== undefined) {
      if (memo.groupsOf === this) groups = memo.groups;
      else {
        memo.specs ??= this.specs.build(pod, constraints, strict);
        groups = memo.specs.map((spec) => this.group(spec));
        memo.groups = groups;
        memo.groupsOf = this;
      }
    } else {
      groups = this.groupCache.get(constraints);
      if (groups === undefined) {
        groups = this.specs.forPod(pod, constraints, strict).map((spec) => this.group(spec));
        this.groupCache.set(constraints, groups);
      }
    }
    groups ??= [];
    // Allocation-light: this runs once per scheduling attempt.
    let checks: TopologyCheck[] | undefined;
    let hostnameChecks: TopologyCheck[] | undefined;
    let needsSort = false;
    const total = groups.length + this.inverseGroups.length;
    for (let i = 0; i < total; i++) {
      const g =
        i < groups.length
          ? (groups[i] as TopologyGroup)
          : (this.inverseGroups[i - groups.length] as TopologyGroup);
      if (g.inverse && !g.selects(pod.namespace, pod.labels)) continue;
      // An inverse group constrains where its owners' victims go, whatever the victim asks for.
      const podDomains = g.inverse ? EXISTS(g.key) : strict.get(g.key);
      const selfSelecting = !g.inverse && g.selects(pod.namespace, pod.labels);
      const check: TopologyCheck = {
        group: g,
        podDomains,
        selfSelecting,
        min: g.kind === 'spread' ? this.spreadMin(g) : 0,
        occupied: g.kind === 'affinity' ? occupiedWithin(g, podDomains) : NO_DOMAINS,
      };
      if (!this.feasibleSomewhere(check)) {
        return {
          checks: [],
          hostnameChecks: [],
          failure: `${g.describe()} cannot be satisfied by any domain`,
        };
      }
      if (checks === undefined) checks = [check];
      else {
        const last = checks[checks.length - 1] as TopologyCheck;
        if (KIND_ORDER[last.group.kind] > KIND_ORDER[g.kind]) needsSort = true;
        checks.push(check);
      }
      if (g.key === HOSTNAME) (hostnameChecks ??= []).push(check);
    }
    if (checks === undefined) return NO_CHECKS;
    if (needsSort) {
      checks.sort((a, b) => KIND_ORDER[a.group.kind] - KIND_ORDER[b.group.kind]);
      if (hostnameChecks !== undefined)
        hostnameChecks = checks.filter((c) => c.group.key === HOSTNAME);
    }
    return { checks, hostnameChecks: hostnameChecks ?? NO_DOMAIN_CHECKS };
  }

  private recordIn(
    groups: readonly TopologyGroup[],
    pod: TopologyPod,
    requirements: Requirements,
    taints: readonly Taint[],
    inFlight: boolean,
    labelMatched: boolean,
  ): void {
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] as TopologyGroup;
      if (labelMatched ? !g.selectsNamespace(pod.namespace) : !g.selects(pod.namespace, pod.labels))
        continue;
      if (
        g.kind === 'spread' &&
        !nodeFilterMatches(g.nodeFilter, taints, requirements, this.allowUndefined)
      )
        continue;
      this.recordOne(g, requirements, inFlight);
    }
  }

  /** Counts a pod on a node with `requirements` in `g` (see `record`). */
  private recordOne(g: TopologyGroup, requirements: Requirements, inFlight: boolean): void {
    const r = requirements.get(g.key);
    // Only anti-affinity counts an open key on a claim, in every known domain it allows.
    const open = inFlight && r.complement && g.kind === 'anti-affinity';
    g.record(r, open ? this.domains.domains(g.key) : undefined);
  }

  /** Registers a new node claim's (or node's) hostname as a domain. */
  registerHostname(hostname: string, taints: readonly Taint[]): void {
    this.domains.register(HOSTNAME, hostname, taints);
    for (const g of this.hostnameAntiGroups) g.registerHostname(hostname);
  }

  /**
   * The only hostnames the attempt can use, when a hostname check narrows them to a known list
   * (anti-affinity: hostnames without a matching pod; affinity: hostnames with one); the
   * smallest such list, or undefined when no check gives one.
   */
  hostnameCandidates(
    attempt: AttemptTopology,
  ): ReadonlySet<string> | readonly string[] | undefined {
    let best: ReadonlySet<string> | readonly string[] | undefined;
    let bestSize = Infinity;
    for (const check of attempt.hostnameChecks) {
      const g = check.group;
      const list =
        g.free ?? (g.kind === 'affinity' && check.occupied.length > 0 ? check.occupied : undefined);
      if (list === undefined) continue;
      const size = list instanceof Set ? list.size : (list as readonly string[]).length;
      if (size < bestSize) {
        best = list;
        bestSize = size;
      }
    }
    return best;
  }

  /**
   * The most selective non-hostname check whose allowed domains are known before looking at a
   * node: affinity (occupied domains), anti-affinity (empty domains), spread (domains within the
   * skew). Undefined when no check narrows below every known domain of its key.
   */
  narrowestDomains(
    attempt: AttemptTopology,
  ): { key: string; domains: readonly string[] } | undefined {
    let best: { key: string; domains: readonly string[] } | undefined;
    for (const check of attempt.checks) {
      const g = check.group;
      if (g.key === HOSTNAME) continue;
      if (g.kind === 'affinity' && check.occupied.length === 0) continue;
      const universe = this.domains.domains(g.key);
      const allowed =
        g.kind === 'affinity'
          ? check.occupied
          : universe.filter((d) => this.domainAllowed(check, d));
      if (
        allowed.length < universe.length &&
        (best === undefined || allowed.length < best.domains.length)
      ) {
        best = { key: g.key, domains: allowed };
      }
    }
    return best;
  }

  /**
   * A cheap necessary condition for a node claim (or node) to pass the attempt's checks: its
   * hostname passes every hostname check, and for every other check whose key the node has
   * already narrowed to a finite set, some value of that set is allowed. Allocation-free; the
   * full check (`narrow`) still runs on nodes that pass.
   */
  mayPass(attempt: AttemptTopology, nodeRequirements: Requirements, hostname: string): boolean {
    const checks = attempt.checks;
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i] as TopologyCheck;
      const key = check.group.key;
      if (key === HOSTNAME) {
        if (!this.domainAllowed(check, hostname)) return false;
        continue;
      }
      const r = nodeRequirements.get(key);
      if (r.complement) continue;
      const values = r.valuesList();
      let any = false;
      for (let j = 0; j < values.length && !any; j++)
        any = this.domainAllowed(check, values[j] as string);
      if (!any) return false;
    }
    return true;
  }

  /**
   * The requirements the attempt's checks add on a node with `nodeRequirements`, or a string
   * naming the check that fails there. Returns undefined when there are no checks.
   */
  narrow(
    attempt: AttemptTopology,
    nodeRequirements: Requirements,
  ): readonly Requirement[] | string | undefined {
    const checks = attempt.checks;
    if (checks.length === 0) return undefined;
    // Per key, the narrowed requirement so far: a pod has a handful of checks, so a short list
    // beats a Map. Scratch lists of this instance (narrow runs for every claim a pod is tried
    // on), used up to `n` and never shrunk, so they keep their storage.
    const keys = this.narrowKeys;
    const narrowed = this.narrowed;
    let n = 0;
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i] as TopologyCheck;
      const key = check.group.key;
      let at = 0;
      while (at < n && keys[at] !== key) at++;
      const current = at < n ? (narrowed[at] as Requirement) : nodeRequirements.get(key);
      const next = this.narrowOne(check, current);
      if (next === undefined) return check.group.notSatisfiedOnNode();
      if (at === n) {
        keys[n] = key;
        n++;
      }
      narrowed[at] = next;
    }
    // Only return what actually narrows; an unchanged requirement would just cost intersections.
    let result: Requirement[] | undefined;
    for (let i = 0; i < n; i++) {
      const r = narrowed[i] as Requirement;
      if (r !== nodeRequirements.get(keys[i] as string)) (result ??= []).push(r);
    }
    return result ?? NO_REQUIREMENTS;
  }

  /** Domains `check` allows within `current`, as a requirement; undefined when none. */
  private narrowOne(check: TopologyCheck, current: Requirement): Requirement | undefined {
    const g = check.group;
    // Candidates: the requirement's values, or (complement) the known domains it allows. Walked
    // in place rather than collected: this runs for every claim a pod is tried on.
    const complement = current.complement;
    const list = complement ? this.domains.domains(g.key) : current.valuesList();
    if (g.kind === 'spread') {
      let best: string | undefined;
      let bestCount = Infinity;
      for (let i = 0; i < list.length; i++) {
        const d = list[i] as string;
        if (complement && !current.has(d)) continue;
        if (!this.domainAllowed(check, d)) continue;
        const n = g.count(d);
        if (n < bestCount) {
          best = d;
          bestCount = n;
        }
      }
      if (best === undefined) return undefined;
      return list.length === 1 && !complement ? current : this.single(g.key, best);
    }
    if (g.kind === 'affinity' && check.occupied.length === 0) {
      // Bootstrap: a self-selecting pod with no match anywhere may open the first domain.
      for (let i = 0; i < list.length; i++) {
        const d = list[i] as string;
        if (complement && !current.has(d)) continue;
        if (!check.podDomains.has(d)) continue;
        return list.length === 1 && !complement ? current : this.single(g.key, d);
      }
      return undefined;
    }
    let allowed: string[] | undefined;
    let candidates = 0;
    for (let i = 0; i < list.length; i++) {
      const d = list[i] as string;
      if (complement && !current.has(d)) continue;
      candidates++;
      if (this.domainAllowed(check, d)) (allowed ??= []).push(d);
    }
    if (allowed === undefined) return undefined;
    if (allowed.length === candidates && !complement) return current;
    return allowed.length === 1
      ? this.single(g.key, allowed[0] as string)
      : Requirement.create(g.key, 'In', allowed);
  }

  /** `key In [value]`, shared per batch (requirements are immutable). */
  private single(key: string, value: string): Requirement {
    let byValue = this.singles.get(key);
    if (byValue === undefined) {
      byValue = new Map();
      this.singles.set(key, byValue);
    }
    let r = byValue.get(value);
    if (r === undefined) {
      r = Requirement.create(key, 'In', [value]);
      byValue.set(value, r);
    }
    return r;
  }

  /** Whether one domain satisfies the check on its own. */
  private domainAllowed(check: TopologyCheck, domain: string): boolean {
    if (!check.podDomains.has(domain)) return false;
    const g = check.group;
    switch (g.kind) {
      case 'spread':
        return g.count(domain) + (check.selfSelecting ? 1 : 0) - check.min <= g.maxSkew;
      case 'affinity':
        return check.occupied.length === 0 ? check.selfSelecting : g.count(domain) > 0;
      case 'anti-affinity':
        return g.count(domain) === 0;
    }
  }

  /** Whether some known domain (or a new node, for hostname) can satisfy the check. */
  private feasibleSomewhere(check: TopologyCheck): boolean {
    const g = check.group;
    if (g.kind === 'affinity') return check.occupied.length > 0 || check.selfSelecting;
    // A new node claim always brings a fresh, empty hostname.
    if (g.key === HOSTNAME) return true;
    return this.domains.domains(g.key).some((d) => this.domainAllowed(check, d));
  }

  /**
   * Spread: the smallest count among eligible domains (those the pod's node affinity allows,
   * when honored, and reachable through tolerated taints, when honored); 0 for hostname (a new
   * node is always possible) or when fewer eligible domains than `minDomains` exist.
   */
  private spreadMin(g: TopologyGroup): number {
    if (g.key === HOSTNAME) return 0;
    let min = Infinity;
    let eligible = 0;
    // Eligibility is the node filter's call: with nodeAffinityPolicy Ignore, domains the pod
    // cannot use still count towards the minimum.
    for (const d of this.domains.domains(g.key)) {
      if (!domainEligible(g.nodeFilter, g.key, d, this.domains.taintSets(g.key, d))) continue;
      eligible++;
      const n = g.count(d);
      if (n < min) min = n;
    }
    if (eligible === 0) return 0;
    if (g.minDomains !== undefined && eligible < g.minDomains) return 0;
    return min;
  }

  /**
   * The group of a spec, created (and counted over everything placed so far) on first use.
   * `hostnames`: the hostnames known when the group is created, if not every known one (see
   * `seedExisting`).
   */
  private group(spec: GroupSpec, hostnames?: () => readonly string[]): TopologyGroup {
    const hash = spec.hash;
    const existing = this.byHash.get(hash);
    if (existing !== undefined) return existing;
    const g = new TopologyGroup(
      this.groups.length,
      hash,
      spec.kind,
      spec.key,
      spec.namespaces,
      spec.matcher,
      spec.inverse,
      spec.maxSkew ?? 0,
      spec.minDomains,
      spec.filter,
    );
    this.groups.push(g);
    this.byHash.set(hash, g);
    if (g.inverse) this.inverseGroups.push(g);
    else {
      const eq = g.selector.equality;
      if (eq === undefined) this.countingOther.push(g);
      else {
        let byValue = this.countingByLabel.get(eq.key);
        if (byValue === undefined) {
          byValue = new Map();
          this.countingByLabel.set(eq.key, byValue);
          this.countingKeys.push(eq.key);
          this.countingMaps.push(byValue);
        }
        const list = byValue.get(eq.value);
        if (list === undefined) byValue.set(eq.value, [g]);
        else list.push(g);
      }
    }
    if (g.free !== undefined) {
      this.hostnameAntiGroups.push(g);
      for (const h of hostnames?.() ?? this.domains.domains(HOSTNAME)) g.registerHostname(h);
    }
    // Count everything placed before the group existed: the existing nodes' pods from the
    // baseline, then the batch's own placements.
    this.base?.seed(g, this.removed);
    for (const p of this.placements) {
      if (g.inverse) {
        if (p.inverseHashes.includes(hash)) this.recordOne(g, p.requirements, p.inFlight);
      } else if (g.selects(p.pod.namespace, p.pod.labels)) {
        if (
          g.kind === 'spread' &&
          !nodeFilterMatches(g.nodeFilter, p.taints, p.requirements, this.allowUndefined)
        )
          continue;
        this.recordOne(g, p.requirements, p.inFlight);
      }
    }
    return g;
  }
}

/**
 * A caller-kept cache for one pod under one constraints object (see `Topology.prepare`): its
 * group specs, and the groups of the batch that resolved them last.
 */
export interface TopologyMemo {
  specs?: GroupSpec[];
  groups?: TopologyGroup[];
  groupsOf?: Topology;
  /** The inverse groups of the pod's required anti-affinity terms, likewise. */
  inverseSpecs?: GroupSpec[];
  inverseGroups?: readonly TopologyGroup[];
  inverseOf?: Topology;
}

/** The identity and parameters of a topology group, independent of any batch's counts. */
export interface GroupSpec {
  readonly kind: TopologyGroupKind;
  readonly key: string;
  readonly namespaces: NamespaceSet;
  readonly matcher: LabelMatcher;
  readonly inverse: boolean;
  readonly maxSkew?: number;
  readonly minDomains?: number;
  readonly filter?: TopologyNodeFilter;
  /** Equal constraints of different pods give equal hashes (and share one group). */
  readonly hash: string;
}

/**
 * Group specs per pod, computed once per constraints object (and per required anti-affinity
 * term) and shared by every batch of one scheduler: building them (selectors with label keys
 * folded in, their canonical text, the hash) costs more than the scheduling attempt itself.
 * Specs depend on the pod's labels and namespace and on the namespace labels, all fixed for the
 * scheduler's lifetime; the pod is kept with each entry and a different pod recomputes.
 */
export class TopologyGroupSpecs {
  private readonly byConstraints = new WeakMap<
    PodConstraints,
    { pod: TopologyPod; specs: GroupSpec[] }
  >();
  private readonly byTerm = new WeakMap<PodAffinityTerm, { pod: TopologyPod; spec: GroupSpec }>();
  /** Compiled selectors by their JSON text: thousands of pods of one workload share a handful. */
  private readonly selectorCache = new Map<string, LabelMatcher>();

  constructor(
    /** Labels of namespaces, for `namespaceSelector` in affinity terms. */
    private readonly namespaceLabels: ReadonlyMap<
      string,
      Readonly<Record<string, string>>
    > = new Map(),
  ) {}

  /** The pod's own group specs (spread, affinity, anti-affinity) under these constraints. */
  forPod(pod: TopologyPod, c: PodConstraints, strict: Requirements): GroupSpec[] {
    const cached = this.byConstraints.get(c);
    if (cached !== undefined && cached.pod === pod) return cached.specs;
    const specs = this.build(pod, c, strict);
    this.byConstraints.set(c, { pod, specs });
    return specs;
  }

  /** `forPod` without the cache, for callers that keep the result themselves. */
  build(pod: TopologyPod, c: PodConstraints, strict: Requirements): GroupSpec[] {
    const out: GroupSpec[] = [];
    for (const tsc of c.topologySpread) out.push(this.spreadSpec(pod, tsc, strict, c.tolerations));
    for (const term of c.requiredAffinity) out.push(this.termSpec(pod, 'affinity', term, false));
    for (const w of c.preferredAffinity)
      out.push(this.termSpec(pod, 'affinity', w.podAffinityTerm, false));
    for (const term of c.requiredAntiAffinity)
      out.push(this.termSpec(pod, 'anti-affinity', term, false));
    for (const w of c.preferredAntiAffinity) {
      out.push(this.termSpec(pod, 'anti-affinity', w.podAffinityTerm, false));
    }
    return out;
  }

  /** The inverse group spec of one of the pod's required anti-affinity terms. */
  inverse(pod: TopologyPod, term: PodAffinityTerm): GroupSpec {
    const cached = this.byTerm.get(term);
    if (cached !== undefined && cached.pod === pod) return cached.spec;
    const spec = this.termSpec(pod, 'anti-affinity', term, true);
    this.byTerm.set(term, { pod, spec });
    return spec;
  }

  private spreadSpec(
    pod: TopologyPod,
    tsc: TopologySpreadConstraint,
    strict: Requirements,
    tolerations: readonly Toleration[],
  ): GroupSpec {
    const selector = withLabelKeys(tsc.labelSelector, pod.labels, tsc.matchLabelKeys, undefined);
    const honorAffinity = (tsc.nodeAffinityPolicy ?? 'Honor') === 'Honor';
    const honorTaints = tsc.nodeTaintsPolicy === 'Honor';
    const filter: TopologyNodeFilter | undefined =
      honorAffinity || honorTaints
        ? {
            ...(honorAffinity ? { requirements: strict } : {}),
            ...(honorTaints ? { tolerations } : {}),
            key: `${honorAffinity ? strict.toString() : '*'}|${honorTaints ? JSON.stringify(tolerations) : '*'}`,
          }
        : undefined;
    return this.spec({
      kind: 'spread',
      key: tsc.topologyKey,
      namespaces: new Set([pod.namespace]),
      selector,
      inverse: false,
      maxSkew: tsc.maxSkew,
      minDomains: tsc.minDomains,
      filter,
    });
  }

  private termSpec(
    pod: TopologyPod,
    kind: 'affinity' | 'anti-affinity',
    term: PodAffinityTerm,
    inverse: boolean,
  ): GroupSpec {
    return this.spec({
      kind,
      key: term.topologyKey,
      namespaces: this.termNamespaces(pod, term),
      selector: withLabelKeys(
        term.labelSelector,
        pod.labels,
        term.matchLabelKeys,
        term.mismatchLabelKeys,
      ),
      inverse,
    });
  }

  /** The pod's namespace by default; the listed namespaces plus those `namespaceSelector` matches. */
  private termNamespaces(pod: TopologyPod, term: PodAffinityTerm): NamespaceSet {
    const listed = term.namespaces ?? [];
    const selector = term.namespaceSelector;
    if (selector === undefined || selector === null) {
      return new Set(listed.length > 0 ? listed : [pod.namespace]);
    }
    const noRules =
      Object.keys(selector.matchLabels ?? {}).length === 0 &&
      (selector.matchExpressions ?? []).length === 0;
    if (noRules) return 'all';
    const matcher = compileLabelSelector(selector);
    const out = new Set(listed);
    for (const [name, labels] of this.namespaceLabels) if (matcher.matches(labels)) out.add(name);
    return out;
  }

  private spec(spec: {
    kind: TopologyGroupKind;
    key: string;
    namespaces: NamespaceSet;
    selector: LabelSelector | undefined;
    inverse: boolean;
    maxSkew?: number;
    minDomains?: number;
    filter?: TopologyNodeFilter;
  }): GroupSpec {
    const selectorText = JSON.stringify(spec.selector ?? null);
    let matcher = this.selectorCache.get(selectorText);
    if (matcher === undefined) {
      matcher = compileLabelSelector(spec.selector);
      this.selectorCache.set(selectorText, matcher);
    }
    const ns = spec.namespaces === 'all' ? '*' : [...spec.namespaces].sort().join(',');
    const hash = [
      spec.kind,
      spec.inverse ? 'inverse' : '',
      spec.key,
      ns,
      spec.maxSkew ?? '',
      spec.minDomains ?? '',
      matcher.key,
      spec.filter?.key ?? '',
    ].join('|');
    return {
      kind: spec.kind,
      key: spec.key,
      namespaces: spec.namespaces,
      matcher,
      inverse: spec.inverse,
      maxSkew: spec.maxSkew,
      minDomains: spec.minDomains,
      filter: spec.filter,
      hash,
    };
  }
}

const EXISTS_CACHE = new Map<string, Requirement>();
function EXISTS(key: string): Requirement {
  let r = EXISTS_CACHE.get(key);
  if (r === undefined) {
    r = Requirement.create(key, 'Exists');
    EXISTS_CACHE.set(key, r);
  }
  return r;
}

/**
 * The selector with `matchLabelKeys` (key In [the pod's value]) and `mismatchLabelKeys`
 * (key NotIn [the pod's value]) folded in, for keys the pod carries.
 */
function withLabelKeys(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>>,
  matchKeys: readonly string[] | undefined,
  mismatchKeys: readonly string[] | undefined,
): LabelSelector | undefined {
  if (selector === undefined || selector === null) return selector;
  if ((matchKeys?.length ?? 0) === 0 && (mismatchKeys?.length ?? 0) === 0) return selector;
  const expressions = [...(selector.matchExpressions ?? [])];
  for (const key of matchKeys ?? []) {
    const v = labels[key];
    if (v !== undefined) expressions.push({ key, operator: 'In', values: [v] });
  }
  for (const key of mismatchKeys ?? []) {
    const v = labels[key];
    if (v !== undefined) expressions.push({ key, operator: 'NotIn', values: [v] });
  }
  return { ...selector, matchExpressions: expressions };
}
