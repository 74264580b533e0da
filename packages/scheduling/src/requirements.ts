/**
 * A set of label requirements keyed by label (upstream `pkg/scheduling/requirements.go`) and the
 * compatibility checks the scheduler runs in its inner loop. The boolean checks allocate nothing;
 * the string-returning ones build their message only on failure.
 */
import { normalizeLabelKey, WellKnownLabels } from '@karpenter-ts/api';
import { Requirement, type NodeSelectorRequirementInput } from './requirement.js';
import type { NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';

/**
 * Label keys a pod may require even when a NodePool does not define them (upstream
 * `AllowUndefinedWellKnownLabels`): `WellKnownLabels` of @karpenter-ts/api — nodepool, zone,
 * region, instance-type, arch, os, capacity-type, windows-build. This is Karpenter's own set;
 * with a cloud provider, use {@link allowUndefinedWellKnownLabels} to add the provider's labels.
 */
export const WELL_KNOWN_LABELS_ALLOW_UNDEFINED: ReadonlySet<string> = WellKnownLabels;

/**
 * Karpenter's well-known labels plus a cloud provider's (e.g. `karpenter.azure.com/sku-cpu`,
 * `karpenter.k8s.aws/instance-cpu`, `karpenter.kwok.sh/instance-cpu`): the keys a pod may
 * require although its NodePool leaves them undefined, so it may pick any value the NodePool
 * leaves open and instance-type filtering then keeps the types that have it. Upstream providers
 * add their labels to the global `v1.WellKnownLabels` at init; here the caller passes them.
 * Keys are normalised (`normalizeLabelKey`).
 * @returns WELL_KNOWN_LABELS_ALLOW_UNDEFINED itself when `providerLabels` adds nothing, else a
 *   new set.
 */
export function allowUndefinedWellKnownLabels(
  providerLabels: Iterable<string> = [],
): ReadonlySet<string> {
  const extra = [...providerLabels]
    .map(normalizeLabelKey)
    .filter((k) => !WELL_KNOWN_LABELS_ALLOW_UNDEFINED.has(k));
  if (extra.length === 0) return WELL_KNOWN_LABELS_ALLOW_UNDEFINED;
  return new Set([...WELL_KNOWN_LABELS_ALLOW_UNDEFINED, ...extra]);
}

/** Shared `Exists` requirements returned by `get` for absent keys (requirements are immutable). */
const EXISTS_BY_KEY = new Map<string, Requirement>();

function existsFor(key: string): Requirement {
  let r = EXISTS_BY_KEY.get(key);
  if (r === undefined) {
    r = Requirement.create(key, 'Exists');
    EXISTS_BY_KEY.set(key, r);
  }
  return r;
}

/** NotIn and DoesNotExist also match a node without the label. */
function toleratesAbsence(r: Requirement): boolean {
  const op = r.operator();
  return op === 'NotIn' || op === 'DoesNotExist';
}

/**
 * Whether two requirements on one key can both hold (upstream `Intersects` per key): their sets
 * overlap, or both also match a node that lacks the label.
 */
function keyIntersects(existing: Requirement, incoming: Requirement): boolean {
  return (
    existing.hasIntersection(incoming) || (toleratesAbsence(incoming) && toleratesAbsence(existing))
  );
}

/**
 * Requirements keyed by (normalised) label key; at most one Requirement per key, because `add`
 * intersects a new requirement with the existing one. `add` mutates the receiver (as upstream);
 * use `copy()` first to keep the original. Requirement instances are immutable and shared.
 */
export class Requirements implements Iterable<Requirement> {
  private readonly byKey = new Map<string, Requirement>();
  /** The requirements as an array, rebuilt lazily after `add`, for allocation-free iteration. */
  private list: Requirement[] | undefined;

  constructor(...requirements: Requirement[]) {
    this.add(...requirements);
  }

  /**
   * Builds requirements from node selector requirements (NodePool `requirements`, a pod's node
   * affinity term), intersecting entries with the same key.
   * @throws RequirementError naming the key for an invalid entry (see `Requirement.create`).
   */
  static fromNodeSelectorRequirements(list: readonly NodeSelectorRequirementInput[]): Requirements {
    const result = new Requirements();
    for (const r of list) {
      result.add(Requirement.create(r.key, r.operator, r.values ?? [], r.minValues));
    }
    return result;
  }

  /** Builds `key In [value]` for every label (a node's labels, a pod's nodeSelector). */
  static fromLabels(labels: Readonly<Record<string, string>>): Requirements {
    const result = new Requirements();
    for (const key of Object.keys(labels)) {
      result.add(Requirement.create(key, 'In', [labels[key] as string]));
    }
    return result;
  }

  /** Intersects each requirement into the one already held for its key; returns `this`. */
  add(...requirements: Requirement[]): this {
    for (const r of requirements) {
      const existing = this.byKey.get(r.key);
      this.byKey.set(r.key, existing === undefined ? r : existing.intersection(r));
    }
    if (requirements.length > 0) this.list = undefined;
    return this;
  }

  /** Puts `requirement` in place of the one held for its key (no intersection); returns `this`. */
  replace(requirement: Requirement): this {
    this.byKey.set(requirement.key, requirement);
    this.list = undefined;
    return this;
  }

  /** The requirement for a key (normalised); `Exists` when none is held, as upstream. */
  get(key: string): Requirement {
    const k = normalizeLabelKey(key);
    return this.byKey.get(k) ?? existsFor(k);
  }

  /** Whether a requirement is held for the (normalised) key. */
  has(key: string): boolean {
    return this.byKey.has(normalizeLabelKey(key));
  }

  /** The keys held, in insertion order (a new array). */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /** Number of keys held. */
  get size(): number {
    return this.byKey.size;
  }

  /** The requirements held, in key insertion order; a shared read-only array. */
  values(): readonly Requirement[] {
    if (this.list === undefined) this.list = [...this.byKey.values()];
    return this.list;
  }

  [Symbol.iterator](): Iterator<Requirement> {
    return this.values()[Symbol.iterator]();
  }

  /** An independent copy (sharing the immutable Requirement instances). */
  copy(): Requirements {
    const result = new Requirements();
    for (const [k, r] of this.byKey) result.byKey.set(k, r);
    return result;
  }

  /** A new Requirements holding both sets, intersected per key; neither input changes. */
  intersection(other: Requirements): Requirements {
    return this.copy().add(...other.values());
  }

  /**
   * Boolean form of `compatible`, allocation-free for the scheduler's inner loop.
   * @param allowUndefined keys `other` may require although this set does not define them.
   */
  isCompatible(other: Requirements, allowUndefined?: ReadonlySet<string>): boolean {
    const incoming = other.values();
    for (let i = 0; i < incoming.length; i++) {
      const r = incoming[i] as Requirement;
      const existing = this.byKey.get(r.key);
      if (existing === undefined) {
        if (allowUndefined !== undefined && allowUndefined.has(r.key)) continue;
        if (!toleratesAbsence(r)) return false;
      } else if (!keyIntersects(existing, r)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether `other` (e.g. a pod's requirements) can be met by this set (e.g. a NodePool's), as
   * upstream `Compatible`: every key `other` requires that this set does not define must be
   * NotIn/DoesNotExist (a node without the label satisfies those) unless it is in
   * `allowUndefined` (pass `allowUndefinedWellKnownLabels(providerLabels)` for well-known
   * labels); then every
   * shared key must intersect (see `intersects`).
   * @returns undefined when compatible, else every reason joined by "; ", e.g.
   *   `label "example.com/team" does not have known values` (with a `(typo of "…"?)` hint when a
   *   defined or allowed key is a near miss) or
   *   `key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]`.
   */
  compatible(other: Requirements, allowUndefined?: ReadonlySet<string>): string | undefined {
    if (this.isCompatible(other, allowUndefined)) return undefined;
    const reasons: string[] = [];
    for (const r of other.values()) {
      if (this.byKey.has(r.key) || allowUndefined?.has(r.key) || toleratesAbsence(r)) continue;
      reasons.push(
        `label ${JSON.stringify(r.key)} does not have known values${this.labelHint(r.key, allowUndefined)}`,
      );
    }
    const mismatch = this.intersects(other);
    if (mismatch !== undefined) reasons.push(mismatch);
    return reasons.join('; ');
  }

  /** Boolean form of `intersects`, allocation-free. */
  isIntersecting(other: Requirements): boolean {
    // keyIntersects is symmetric, so walk the smaller map and look keys up in the larger.
    const thisSmaller = this.byKey.size <= other.byKey.size;
    const list = thisSmaller ? this.values() : other.values();
    const large = thisSmaller ? other.byKey : this.byKey;
    for (let i = 0; i < list.length; i++) {
      const a = list[i] as Requirement;
      const b = large.get(a.key);
      if (b !== undefined && !keyIntersects(a, b)) return false;
    }
    return true;
  }

  /**
   * Whether every key both sets define can be satisfied by both (upstream `Intersects`): the
   * value sets overlap, or both requirements are NotIn/DoesNotExist (a node without the label
   * satisfies both). Keys defined on one side only are ignored.
   * @returns undefined when they intersect, else one reason per failing key joined by "; ".
   */
  intersects(other: Requirements): string | undefined {
    if (this.isIntersecting(other)) return undefined;
    const reasons: string[] = [];
    for (const existing of this.values()) {
      const incoming = other.byKey.get(existing.key);
      if (incoming !== undefined && !keyIntersects(existing, incoming)) {
        reasons.push(`key ${existing.key}, ${incoming.toString()} not in ${existing.toString()}`);
      }
    }
    return reasons.join('; ');
  }

  /**
   * The labels these requirements pin down: each key whose requirement is `In` with exactly one
   * value. (Upstream `Labels()` instead takes a random member of any requirement and skips
   * restricted keys; callers that want that filter the result.)
   */
  labels(): Record<string, string> {
    const result: Record<string, string> = {};
    for (const r of this.values()) {
      if (!r.complement && r.values.size === 1) result[r.key] = r.valuesList()[0] as string;
    }
    return result;
  }

  /** Serialises every requirement (see `Requirement.toNodeSelectorRequirements`), sorted by key. */
  toNodeSelectorRequirements(): NodeSelectorRequirementWithMinValues[] {
    return [...this.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .flatMap((r) => r.toNodeSelectorRequirements());
  }

  /** Whether any requirement carries minValues (upstream `HasMinValues`). */
  hasMinValues(): boolean {
    for (const r of this.values()) if (r.minValues !== undefined) return true;
    return false;
  }

  /** The keys carrying minValues and their minimums, e.g. `{ "node.kubernetes.io/instance-type": 3 }`. */
  minValues(): Record<string, number> {
    const result: Record<string, number> = {};
    for (const r of this.values()) if (r.minValues !== undefined) result[r.key] = r.minValues;
    return result;
  }

  /** Requirements in key order, comma-separated, e.g. `kubernetes.io/arch In [amd64], …`. */
  toString(): string {
    return this.values()
      .map((r) => r.toString())
      .sort()
      .join(', ');
  }

  /** A ` (typo of "…"?)` hint when an undefined key is a near miss of a defined or allowed key. */
  private labelHint(key: string, allowUndefined: ReadonlySet<string> | undefined): string {
    const candidates = [...(allowUndefined ?? []), ...this.byKey.keys()];
    for (const candidate of candidates) {
      if (isNearMiss(key, candidate)) return ` (typo of ${JSON.stringify(candidate)}?)`;
    }
    return '';
  }
}

/**
 * A near miss: one key is a suffix of the other after a "/" or ".", (e.g. "zone" vs
 * "topology.kubernetes.io/zone"), or the edit distance is at most a fifth of the length.
 */
function isNearMiss(key: string, candidate: string): boolean {
  if (key === candidate) return false;
  if (candidate.endsWith(`/${key}`) || key.endsWith(`/${candidate}`)) return true;
  const budget = Math.max(1, Math.floor(candidate.length / 5));
  return editDistanceWithin(key, candidate, budget);
}

/** Levenshtein distance ≤ budget, computed row by row with early exit. */
function editDistanceWithin(a: string, b: string, budget: number): boolean {
  if (Math.abs(a.length - b.length) > budget) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > budget) return false;
    previous = current;
  }
  return (previous[b.length] as number) <= budget;
}
