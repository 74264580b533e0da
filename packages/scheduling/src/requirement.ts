/**
 * One label requirement as a set algebra (upstream `pkg/scheduling/requirement.go`): a set of
 * allowed values, or the complement of a set of excluded values, optionally narrowed to integers
 * within inclusive bounds. Instances are immutable, so results may share instances safely.
 */
import type { NodeSelectorOperator, NodeSelectorRequirementWithMinValues } from '@karpenter-ts/api';
import { NodeSelectorOperators, normalizeLabelKey } from '@karpenter-ts/api';

/**
 * Node selector operators: Kubernetes' six plus Karpenter's inclusive `Gte` and `Lte`
 * (@karpenter-ts/api's `NodeSelectorOperator`, under the name scheduling has always exported).
 */
export type RequirementOperator = NodeSelectorOperator;

const OPERATORS: ReadonlySet<string> = new Set<string>(NodeSelectorOperators);

/**
 * A requirement as written in YAML: Kubernetes' NodeSelectorRequirement (or karpenter.sh/v1's
 * `NodeSelectorRequirementWithMinValues`), read loosely so both client-model and API types fit.
 */
export interface NodeSelectorRequirementInput {
  key: string;
  operator: string;
  values?: readonly string[];
  minValues?: number;
}

/** Thrown for a requirement that cannot mean anything; the message names the key and the rule. */
export class RequirementError extends Error {
  readonly key: string;

  constructor(key: string, rule: string) {
    super(`requirement ${JSON.stringify(key)}: ${rule}`);
    this.name = 'RequirementError';
    this.key = key;
  }
}

const MAX_INT64_DIGITS = '9223372036854775807';
const MIN_INT64_DIGITS = '9223372036854775808';

/**
 * A label value read as an integer the way Go's `strconv.Atoi` reads it (optional sign, decimal
 * digits, leading zeros allowed, int64 range), or undefined. Allocation-free: it runs in the
 * scheduler's inner loop for bounded requirements.
 */
export function labelValueAsInteger(value: string): number | undefined {
  const n = value.length;
  let i = 0;
  const first = value.charCodeAt(0);
  const negative = first === 45; // '-'
  if (negative || first === 43) i = 1; // '+'
  if (i >= n) return undefined;
  let firstSignificant = -1;
  for (let j = i; j < n; j++) {
    const c = value.charCodeAt(j);
    if (c < 48 || c > 57) return undefined;
    if (firstSignificant < 0 && c !== 48) firstSignificant = j;
  }
  if (firstSignificant >= 0) {
    const digits = n - firstSignificant;
    if (digits > 19) return undefined;
    if (digits === 19) {
      const limit = negative ? MIN_INT64_DIGITS : MAX_INT64_DIGITS;
      for (let j = 0; j < 19; j++) {
        const d = value.charCodeAt(firstSignificant + j) - limit.charCodeAt(j);
        if (d < 0) break;
        if (d > 0) return undefined;
      }
    }
  }
  return Number(value);
}

function within(value: string, gte: number | undefined, lte: number | undefined): boolean {
  if (gte === undefined && lte === undefined) return true;
  const n = labelValueAsInteger(value);
  if (n === undefined) return false;
  return (gte === undefined || n >= gte) && (lte === undefined || n <= lte);
}

const maxDefined = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : a > b ? a : b;
const minDefined = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : a < b ? a : b;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const EMPTY: ReadonlySet<string> = new Set();

/**
 * A requirement on one label key. The value set it denotes is:
 * - `complement = false`: exactly `values` (In; DoesNotExist when empty);
 * - `complement = true`: every string not in `values` (NotIn; Exists when empty), further limited,
 *   when `greaterThanOrEqual`/`lessThanOrEqual` are set, to strings that read as an integer
 *   (Go `Atoi` rules) within those inclusive bounds. Bounds only ever sit on complement sets.
 * `minValues` is carried along (the max wins on intersection) for instance-type flexibility.
 */
export class Requirement {
  /** The label key, normalised (deprecated beta keys mapped by @karpenter-ts/api normalizeLabelKey). */
  readonly key: string;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  readonly greaterThanOrEqual?: number;
  readonly lessThanOrEqual?: number;
  readonly minValues?: number;
  /** `values` in insertion order, so hot loops iterate without allocating an iterator. */
  private readonly list: readonly string[];
  private sorted: readonly string[] | undefined;

  private constructor(
    key: string,
    complement: boolean,
    values: ReadonlySet<string>,
    list: readonly string[],
    gte: number | undefined,
    lte: number | undefined,
    minValues: number | undefined,
  ) {
    this.key = key;
    this.complement = complement;
    this.values = values;
    this.list = list;
    this.greaterThanOrEqual = gte;
    this.lessThanOrEqual = lte;
    this.minValues = minValues;
    this.sorted = undefined;
  }

  private static of(
    key: string,
    complement: boolean,
    list: string[],
    gte: number | undefined,
    lte: number | undefined,
    minValues: number | undefined,
  ): Requirement {
    const values = list.length === 0 ? EMPTY : new Set(list);
    return new Requirement(key, complement, values, list, gte, lte, minValues);
  }

  /**
   * The same requirement with another minValues (undefined: none), as upstream BestEffort lowers
   * a minValues the instance types cannot meet (`RelaxMinValues`).
   */
  withMinValues(minValues: number | undefined): Requirement {
    if (minValues === this.minValues) return this;
    return new Requirement(
      this.key,
      this.complement,
      this.values,
      this.list,
      this.greaterThanOrEqual,
      this.lessThanOrEqual,
      minValues,
    );
  }

  /**
   * Builds a requirement from an operator, as upstream `NewRequirementWithFlexibility`:
   * In ⇒ the values; NotIn ⇒ all but the values; Exists ⇒ all; DoesNotExist ⇒ none;
   * Gt n ⇒ integers ≥ n+1; Lt n ⇒ integers ≤ n−1; Gte/Lte n ⇒ inclusive bounds. The key is
   * normalised. Bounds are JavaScript safe integers: Gt n with n ≥ 2^53−1 (upstream: MaxInt64) and
   * Lt n with n ≤ −(2^53−1) can match nothing and yield DoesNotExist; bounds beyond the safe range
   * on the permissive side are clamped to it.
   * @param values for In/NotIn the set (duplicates collapse; empty In = DoesNotExist, empty
   *   NotIn = Exists); for Gt/Lt/Gte/Lte exactly one integer; for Exists/DoesNotExist none.
   * @param minValues a positive integer, or undefined.
   * @throws RequirementError for an empty key, an unknown operator, a missing or non-integer
   *   bound, values given to Exists/DoesNotExist, or a minValues that is not a positive integer.
   */
  static create(
    key: string,
    operator: RequirementOperator | string,
    values: readonly string[] = [],
    minValues?: number,
  ): Requirement {
    if (typeof key !== 'string' || key.length === 0) {
      throw new RequirementError(String(key), 'the key must be a non-empty string');
    }
    const k = normalizeLabelKey(key);
    if (!OPERATORS.has(operator)) {
      throw new RequirementError(
        key,
        `unknown operator ${JSON.stringify(operator)} (allowed: ${[...OPERATORS].join(', ')})`,
      );
    }
    if (minValues !== undefined && (!Number.isSafeInteger(minValues) || minValues < 1)) {
      throw new RequirementError(key, `minValues must be a positive integer, got ${minValues}`);
    }
    switch (operator) {
      case 'In':
      case 'NotIn':
        return Requirement.of(
          k,
          operator === 'NotIn',
          [...new Set(values.map(String))],
          undefined,
          undefined,
          minValues,
        );
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          throw new RequirementError(
            key,
            `operator ${operator} takes no values, got ${values.length}`,
          );
        }
        return Requirement.of(k, operator === 'Exists', [], undefined, undefined, minValues);
    }
    if (values.length !== 1 || !/^[+-]?[0-9]+$/.test(String(values[0]))) {
      throw new RequirementError(
        key,
        `operator ${operator} needs exactly one integer value, got ${JSON.stringify(values)}`,
      );
    }
    const n = BigInt(String(values[0]));
    const lower = operator === 'Gt' || operator === 'Gte';
    const bound = operator === 'Gt' ? n + 1n : operator === 'Lt' ? n - 1n : n;
    if ((lower && bound > MAX_SAFE) || (!lower && bound < MIN_SAFE)) {
      return Requirement.of(k, false, [], undefined, undefined, minValues);
    }
    const clamped = Number(bound > MAX_SAFE ? MAX_SAFE : bound < MIN_SAFE ? MIN_SAFE : bound);
    return Requirement.of(
      k,
      true,
      [],
      lower ? clamped : undefined,
      lower ? undefined : clamped,
      minValues,
    );
  }

  /**
   * The operator this set reads as (upstream `Operator()`): complement ⇒ NotIn if it excludes
   * values, else Exists (bounded sets too); otherwise In if non-empty, else DoesNotExist.
   */
  operator(): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
    if (this.complement) return this.values.size > 0 ? 'NotIn' : 'Exists';
    return this.values.size > 0 ? 'In' : 'DoesNotExist';
  }

  /** Whether the label value is allowed, respecting complement and integer bounds. */
  has(value: string): boolean {
    if (this.complement) {
      return (
        !this.values.has(value) && within(value, this.greaterThanOrEqual, this.lessThanOrEqual)
      );
    }
    return this.values.has(value) && within(value, this.greaterThanOrEqual, this.lessThanOrEqual);
  }

  /**
   * Number of allowed values: the set size, or for a complement Number.MAX_SAFE_INTEGER minus the
   * excluded count (upstream uses MaxInt64), a stand-in for "unbounded".
   */
  len(): number {
    return this.complement ? Number.MAX_SAFE_INTEGER - this.values.size : this.values.size;
  }

  /** True when this requirement is Exists with no bounds: intersecting with it changes nothing. */
  private isUnboundedExists(): boolean {
    return (
      this.complement &&
      this.values.size === 0 &&
      this.greaterThanOrEqual === undefined &&
      this.lessThanOrEqual === undefined
    );
  }

  /**
   * True when this is a concrete set and intersecting with `other` would return it unchanged:
   * `other` allows every value here, adds no larger minValues, and (being unbounded, or concrete)
   * brings no bounds. Allocation-free.
   */
  private keepsAllOf(other: Requirement): boolean {
    if (this.complement || (other.minValues ?? 0) > (this.minValues ?? 0)) return false;
    if (other.greaterThanOrEqual !== undefined || other.lessThanOrEqual !== undefined) return false;
    if (other.complement) {
      // Walk whichever list is shorter: none of the excluded values may be here.
      if (other.list.length <= this.list.length) {
        for (let i = 0; i < other.list.length; i++) {
          if (this.values.has(other.list[i] as string)) return false;
        }
      } else {
        for (let i = 0; i < this.list.length; i++) {
          if (other.values.has(this.list[i] as string)) return false;
        }
      }
      return true;
    }
    if (this.list.length > other.list.length) return false;
    for (let i = 0; i < this.list.length; i++) {
      if (!other.values.has(this.list[i] as string)) return false;
    }
    return true;
  }

  /**
   * The requirement allowing exactly the values both allow (upstream `Intersection`): complement
   * iff both are; bounds are the tighter of each; contradictory bounds give DoesNotExist; values
   * outside the bounds are dropped; a concrete (non-complement) result keeps no bounds; minValues
   * is the larger of the two. Returns one of the operands when the other cannot narrow it.
   */
  intersection(other: Requirement): Requirement {
    if (other === this) return this;
    if (other.isUnboundedExists() && (other.minValues ?? 0) <= (this.minValues ?? 0)) return this;
    if (this.isUnboundedExists() && (this.minValues ?? 0) <= (other.minValues ?? 0)) return other;
    // A concrete set that the other side cannot narrow comes back as is: saves copying large
    // instance-type lists when, say, a pod's NotIn excludes none of a pool's values.
    if (this.keepsAllOf(other)) return this;
    if (other.keepsAllOf(this)) return other;

    const minValues = maxDefined(this.minValues, other.minValues);
    let gte = maxDefined(this.greaterThanOrEqual, other.greaterThanOrEqual);
    let lte = minDefined(this.lessThanOrEqual, other.lessThanOrEqual);
    if (gte !== undefined && lte !== undefined && gte > lte) {
      return Requirement.of(this.key, false, [], undefined, undefined, minValues);
    }
    const complement = this.complement && other.complement;
    const out: string[] = [];
    if (complement) {
      pushWithin(out, this.list, undefined, gte, lte);
      pushWithin(out, other.list, this.values, gte, lte);
    } else if (this.complement) {
      pushWithin(out, other.list, this.values, gte, lte);
    } else if (other.complement) {
      pushWithin(out, this.list, other.values, gte, lte);
    } else {
      const thisSmaller = this.list.length <= other.list.length;
      const small = thisSmaller ? this.list : other.list;
      const large = thisSmaller ? other.values : this.values;
      for (let i = 0; i < small.length; i++) {
        const v = small[i] as string;
        if (large.has(v) && within(v, gte, lte)) out.push(v);
      }
    }
    if (!complement) {
      gte = undefined;
      lte = undefined;
    }
    return Requirement.of(this.key, complement, out, gte, lte, minValues);
  }

  /**
   * Whether any value satisfies both (upstream `HasIntersection`), without allocating. Two
   * complement sets always intersect when their bounds are consistent: finitely many excluded
   * strings cannot cover the infinitely many spellings ("7", "07", "007"…) of an integer in range.
   */
  hasIntersection(other: Requirement): boolean {
    const gte = maxDefined(this.greaterThanOrEqual, other.greaterThanOrEqual);
    const lte = minDefined(this.lessThanOrEqual, other.lessThanOrEqual);
    if (gte !== undefined && lte !== undefined && gte > lte) return false;
    if (this.complement && other.complement) return true;
    if (this.complement || other.complement) {
      const concrete = this.complement ? other.list : this.list;
      const excluded = this.complement ? this.values : other.values;
      for (let i = 0; i < concrete.length; i++) {
        const v = concrete[i] as string;
        if (!excluded.has(v) && within(v, gte, lte)) return true;
      }
      return false;
    }
    const small = this.list.length <= other.list.length ? this.list : other.list;
    const large = this.list.length <= other.list.length ? other.values : this.values;
    for (let i = 0; i < small.length; i++) {
      const v = small[i] as string;
      if (large.has(v) && within(v, gte, lte)) return true;
    }
    return false;
  }

  /**
   * One allowed value, or "" when none is. Deterministic here, unlike upstream's random choice:
   * In ⇒ the smallest value (string order); NotIn/Exists ⇒ the integer closest to 0 within the
   * bounds (from the lower bound upward when there is one) that is not excluded, rendered in
   * decimal — if every such integer is excluded, a zero-padded spelling of the lower bound.
   */
  any(): string {
    if (!this.complement) return this.valuesList()[0] ?? '';
    const gte = this.greaterThanOrEqual;
    const lte = this.lessThanOrEqual;
    const step = gte === undefined && lte !== undefined && lte < 0 ? -1 : 1;
    const start = gte ?? (step === -1 ? (lte as number) : 0);
    // At most |values| + 1 candidates are needed; the bound check stops a bounded range.
    for (let i = 0, n = start; i <= this.values.size; i++, n += step) {
      if ((lte !== undefined && n > lte) || (gte !== undefined && n < gte)) break;
      const s = String(n);
      if (!this.values.has(s)) return s;
    }
    const digits = String(Math.abs(start));
    const sign = start < 0 ? '-' : '';
    for (let pad = '0'; ; pad += '0') {
      const s = `${sign}${pad}${digits}`;
      if (!this.values.has(s)) return s;
    }
  }

  /** The values (allowed, or excluded for a complement), sorted; a shared read-only array. */
  valuesList(): readonly string[] {
    if (this.sorted === undefined) this.sorted = Object.freeze([...this.list].sort());
    return this.sorted;
  }

  /**
   * Serialises back to node selector requirements: In/NotIn (sorted values), Exists or
   * DoesNotExist; bounds become `Gte`/`Lte` entries — two entries when both are set — plus a
   * NotIn entry if values are excluded too. `minValues` is repeated on every entry (re-parsing
   * takes the max, so the round trip is exact).
   */
  toNodeSelectorRequirements(): NodeSelectorRequirementWithMinValues[] {
    const mv = this.minValues === undefined ? {} : { minValues: this.minValues };
    const out: NodeSelectorRequirementWithMinValues[] = [];
    const values = this.valuesList();
    if (this.greaterThanOrEqual !== undefined) {
      out.push({
        key: this.key,
        operator: 'Gte',
        values: [String(this.greaterThanOrEqual)],
        ...mv,
      });
    }
    if (this.lessThanOrEqual !== undefined) {
      out.push({ key: this.key, operator: 'Lte', values: [String(this.lessThanOrEqual)], ...mv });
    }
    if (values.length > 0) {
      out.push({ key: this.key, operator: this.operator(), values: [...values], ...mv });
    } else if (out.length === 0) {
      out.push({ key: this.key, operator: this.operator(), ...mv });
    }
    return out;
  }

  /** Human-readable form for messages, e.g. `kubernetes.io/arch In [amd64 arm64] minValues 2`. */
  toString(): string {
    const operator = this.operator();
    let s: string;
    if (operator === 'Exists' || operator === 'DoesNotExist') {
      s = `${this.key} ${operator}`;
    } else {
      const values = this.valuesList();
      const shown =
        values.length > 5 ? [...values.slice(0, 5), `and ${values.length - 5} others`] : values;
      s = `${this.key} ${operator} [${shown.join(' ')}]`;
    }
    if (this.greaterThanOrEqual !== undefined) s += ` >=${this.greaterThanOrEqual}`;
    if (this.lessThanOrEqual !== undefined) s += ` <=${this.lessThanOrEqual}`;
    if (this.minValues !== undefined) s += ` minValues ${this.minValues}`;
    return s;
  }
}

/** Appends the values of `list` that are not in `exclude` (unless already in `out`) and in bounds. */
function pushWithin(
  out: string[],
  list: readonly string[],
  exclude: ReadonlySet<string> | undefined,
  gte: number | undefined,
  lte: number | undefined,
): void {
  for (let i = 0; i < list.length; i++) {
    const v = list[i] as string;
    if (exclude !== undefined && exclude.has(v)) continue;
    if (within(v, gte, lte)) out.push(v);
  }
}
