/**
 * One topology group (upstream `topologygroup.go`): a topology spread
 * constraint, a pod-affinity term or a pod-anti-affinity term, de-duplicated across pods, with the
 * number of matching pods per domain of its key.
 */
import type { Taint, Toleration } from '@karpenter-ts/api';
import type { LabelMatcher } from '../label-selector.js';
import type { Requirement } from '../requirement.js';
import { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from '../requirements.js';
import { toleratesAll } from '../taints.js';

const HOSTNAME = 'kubernetes.io/hostname';

/** What a group enforces. */
export type TopologyGroupKind = 'spread' | 'affinity' | 'anti-affinity';

/** The namespaces a group counts pods in: a fixed set, or every namespace. */
export type NamespaceSet = ReadonlySet<string> | 'all';

/**
 * Which nodes (and domains) a spread constraint counts (`nodeAffinityPolicy`,
 * `nodeTaintsPolicy`): with `requirements` set (Honor, the default) only nodes compatible with the
 * pod's node selector and required node affinity; with `tolerations` set (Honor; the default is
 * Ignore) only nodes whose taints the pod tolerates.
 */
export interface TopologyNodeFilter {
  readonly requirements?: Requirements;
  readonly tolerations?: readonly Toleration[];
  /** Canonical text, part of the group's identity. */
  readonly key: string;
}

/**
 * Whether a node with these taints and requirements is counted by the filter. The filter's keys
 * in `allowUndefined` (the well-known labels) may be undefined on the node's requirements (a
 * node claim that has not picked a value yet), as upstream.
 */
export function nodeFilterMatches(
  filter: TopologyNodeFilter | undefined,
  taints: readonly Taint[],
  requirements: Requirements,
  allowUndefined: ReadonlySet<string> = WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
): boolean {
  if (filter === undefined) return true;
  if (filter.tolerations !== undefined && toleratesAll(filter.tolerations, taints) !== undefined) {
    return false;
  }
  if (
    filter.requirements !== undefined &&
    !requirements.isCompatible(filter.requirements, allowUndefined)
  ) {
    return false;
  }
  return true;
}

/** Whether a domain (reached through nodes with `taintSets`) is eligible under the filter. */
export function domainEligible(
  filter: TopologyNodeFilter | undefined,
  key: string,
  domain: string,
  taintSets: readonly (readonly Taint[])[],
): boolean {
  if (filter === undefined) return true;
  if (filter.requirements !== undefined && !filter.requirements.get(key).has(domain)) return false;
  if (filter.tolerations !== undefined) {
    const tolerations = filter.tolerations;
    return taintSets.some((taints) => toleratesAll(tolerations, taints) === undefined);
  }
  return true;
}

const NONE: readonly string[] = [];

/**
 * The domains one pod counts in for a group of `kind` on a node whose requirement on the key is
 * `domains` with finite values (see {@link TopologyGroup.record}): every value for
 * anti-affinity, the single value for spread and affinity, none when a spread or affinity node
 * is still undecided; empty for a complement requirement.
 */
export function decidedDomains(kind: TopologyGroupKind, domains: Requirement): readonly string[] {
  if (domains.complement) return NONE;
  if (kind === 'anti-affinity') return domains.valuesList();
  return domains.values.size === 1 ? domains.valuesList() : NONE;
}

/** A de-duplicated topology constraint and its per-domain counts. */
export class TopologyGroup {
  /** Matching pods per domain; absent means 0. */
  private readonly counts = new Map<string, number>();
  /** Domains with a positive count, for affinity lookups. */
  private readonly occupied: string[] = [];
  /**
   * Hostname anti-affinity groups only: known hostnames with a zero count. A pod with such a
   * constraint can only go to these nodes, usually a handful among thousands of node claims.
   */
  readonly free: Set<string> | undefined;

  constructor(
    /** Position in the registry (creation order). */
    readonly id: number,
    /** Identity used to de-duplicate equal constraints of different pods. */
    readonly hash: string,
    readonly kind: TopologyGroupKind,
    /** The topology key, e.g. `topology.kubernetes.io/zone`. */
    readonly key: string,
    readonly namespaces: NamespaceSet,
    readonly selector: LabelMatcher,
    /**
     * True for the inverse of a required anti-affinity term: the group counts the pods that
     * *own* the term, and keeps pods its selector matches out of those domains.
     */
    readonly inverse: boolean,
    /** Spread only. */
    readonly maxSkew = 0,
    /** Spread only; undefined when unset. */
    readonly minDomains: number | undefined = undefined,
    /** Spread only. */
    readonly nodeFilter: TopologyNodeFilter | undefined = undefined,
  ) {
    this.free = kind === 'anti-affinity' && key === HOSTNAME ? new Set() : undefined;
  }

  /** Registers a hostname (a new node claim or node) with this group's free set. */
  registerHostname(hostname: string): void {
    if (this.free !== undefined && this.count(hostname) === 0) this.free.add(hostname);
  }

  /** Whether the group counts (or, inverse, constrains) a pod with these labels in this namespace. */
  selects(namespace: string, labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.namespaces !== 'all' && !this.namespaces.has(namespace)) return false;
    return this.selector.matches(labels);
  }

  /** Whether the group counts pods in this namespace (the namespace half of `selects`). */
  selectsNamespace(namespace: string): boolean {
    return this.namespaces === 'all' || this.namespaces.has(namespace);
  }

  /** Pods counted in `domain`. */
  count(domain: string): number {
    return this.counts.get(domain) ?? 0;
  }

  /** Domains holding at least one counted pod, in the order they were first counted. */
  occupiedDomains(): readonly string[] {
    return this.occupied;
  }

  /**
   * Counts one pod on a node with `domains` as its (possibly undecided) requirement on the key:
   * anti-affinity (and inverse) groups count every value the node could still take, so an
   * undecided domain blocks all of them; spread and affinity count only a decided (single) domain.
   * A complement requirement (no finite values) counts nothing on an existing node (it lacks the
   * label); on an in-flight node claim, pass the key's known domains as `undecided`: the claim may
   * still launch in any of them that the requirement allows, so anti-affinity counts them all
   * (upstream first narrows such a claim to those domains, then records them).
   */
  record(domains: Requirement, undecided?: readonly string[]): void {
    if (domains.complement) {
      if (this.kind !== 'anti-affinity' || undecided === undefined) return;
      for (let i = 0; i < undecided.length; i++) {
        const d = undecided[i] as string;
        if (domains.has(d)) this.increment(d);
      }
      return;
    }
    const counted = decidedDomains(this.kind, domains);
    for (let i = 0; i < counted.length; i++) this.increment(counted[i] as string);
  }

  /** Adds one counted pod in `domain`. */
  increment(domain: string): void {
    this.add(domain, 1);
  }

  /** Adds `n` (> 0) counted pods in `domain`. */
  add(domain: string, n: number): void {
    const before = this.counts.get(domain) ?? 0;
    if (before === 0) {
      this.occupied.push(domain);
      this.free?.delete(domain);
    }
    this.counts.set(domain, before + n);
  }

  private notSatisfied: string | undefined;

  /** `<describe()> is not satisfied on this node`, built once (nodes fail checks often). */
  notSatisfiedOnNode(): string {
    return (this.notSatisfied ??= `${this.describe()} is not satisfied on this node`);
  }

  /** A short description for error messages, e.g. `topology spread on topology.kubernetes.io/zone (maxSkew 1)`. */
  describe(): string {
    switch (this.kind) {
      case 'spread':
        return `topology spread constraint on ${this.key} (maxSkew ${this.maxSkew}${
          this.minDomains === undefined ? '' : `, minDomains ${this.minDomains}`
        }, selector ${this.selector.key})`;
      case 'affinity':
        return `pod affinity on ${this.key} (selector ${this.selector.key})`;
      case 'anti-affinity':
        return this.inverse
          ? `anti-affinity of already scheduled pods on ${this.key} (selector ${this.selector.key})`
          : `pod anti-affinity on ${this.key} (selector ${this.selector.key})`;
    }
  }
}
