/**
 * The solver catalog of one batch: one row per (NodePool template, instance type), each row's
 * allocatable already reduced by the daemonset overhead of its daemon group, plus bit masks of
 * rows for the requirement checks the scheduler asks about.
 *
 * Instance-type filtering by requirements (type requirements intersect, and an available offering
 * intersects) depends only on the requirement keys instance types and offerings define, so masks
 * are cached per signature of those keys: a pod's hostname placeholder or custom labels never
 * cause a recomputation.
 */
import type { SolverCatalog } from '@karpenter-ts/solver';
import type { HostPort } from './host-ports.js';
import { anyHostPortConflict } from './host-ports.js';
import type { Requirement } from './requirement.js';
import type { Requirements } from './requirements.js';
import type { ResourceList } from './resources.js';
import type { DaemonGroup } from './daemon-overhead.js';
import type { SchedulerInstanceType } from './scheduler-types.js';

/** One catalog row. */
export interface CatalogRow<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  /** Index of the NodePool template (in weight order). */
  readonly pool: number;
  readonly instanceType: IT;
  /** Index into `Catalog.daemonGroups`. */
  readonly daemonGroup: number;
  /** Index of the distinct instance type object (types shared by pools share it). */
  readonly typeIndex: number;
}

/** Number of 32-bit words for `n` rows. */
export function maskWords(n: number): number {
  return Math.max(1, Math.ceil(n / 32));
}

/** Sets bit `row`. */
export function setBit(mask: Uint32Array, row: number): void {
  mask[row >>> 5] = ((mask[row >>> 5] as number) | (1 << (row & 31))) >>> 0;
}

/** Whether bit `row` is set. */
export function hasBit(mask: Uint32Array, row: number): boolean {
  return (((mask[row >>> 5] as number) >>> (row & 31)) & 1) === 1;
}

/** `a & b` into `out` (may alias `a`); returns `out`. */
export function andMask(a: Uint32Array, b: Uint32Array, out: Uint32Array): Uint32Array {
  for (let i = 0; i < out.length; i++) out[i] = ((a[i] as number) & (b[i] as number)) >>> 0;
  return out;
}

/** Calls `fn` for every set bit, in ascending row order. */
export function forEachRow(mask: Uint32Array, fn: (row: number) => void): void {
  for (let w = 0; w < mask.length; w++) {
    let word = mask[w] as number;
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      fn(w * 32 + bit);
      word = (word & ~(1 << bit)) >>> 0;
    }
  }
}

/** Number of set bits. */
export function countBits(mask: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < mask.length; w++) {
    let x = mask[w] as number;
    x = x - ((x >>> 1) & 0x55555555);
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

/** A row set plus everything the scheduler derives from rows. */
export class Catalog<IT extends SchedulerInstanceType = SchedulerInstanceType> {
  readonly words: number;
  /** Rows of each pool whose allocatable covers its daemon overhead. */
  readonly poolMasks: Uint32Array[];
  readonly all: Uint32Array;
  private readonly distinctTypes: IT[] = [];
  /** Requirement keys any instance type or offering defines. */
  private readonly keys: string[];
  private readonly maskCache = new Map<string, Uint32Array>();
  private readonly portMaskCache = new Map<string, Uint32Array>();

  constructor(
    readonly rows: readonly CatalogRow<IT>[],
    readonly daemonGroups: readonly DaemonGroup[],
    poolCount: number,
  ) {
    this.words = maskWords(rows.length);
    this.all = new Uint32Array(this.words);
    this.poolMasks = Array.from({ length: poolCount }, () => new Uint32Array(this.words));
    const keys = new Set<string>();
    for (const row of rows) {
      if (this.distinctTypes[row.typeIndex] === undefined) {
        this.distinctTypes[row.typeIndex] = row.instanceType;
        for (const k of row.instanceType.requirements.keys()) keys.add(k);
        for (const o of row.instanceType.offerings)
          for (const k of o.requirements.keys()) keys.add(k);
      }
    }
    this.keys = [...keys].sort();
  }

  /** Marks a row as usable for its pool. */
  enable(row: number): void {
    setBit(this.all, row);
    setBit(this.poolMasks[(this.rows[row] as CatalogRow<IT>).pool] as Uint32Array, row);
  }

  /**
   * The solver catalog: allocatable minus daemon overhead per row, in `resourceNames` columns
   * (a row whose overhead exceeds its allocatable gets zeros; callers leave it disabled).
   */
  solverCatalog(resourceNames: readonly string[]): SolverCatalog {
    const r = resourceNames.length;
    const allocatable = new Float64Array(this.rows.length * r);
    this.rows.forEach((row, t) => {
      const alloc = row.instanceType.allocatable();
      const overhead = (this.daemonGroups[row.daemonGroup] as DaemonGroup).overhead;
      resourceNames.forEach((name, c) => {
        allocatable[t * r + c] = Math.max(0, (alloc[name] ?? 0) - (overhead[name] ?? 0));
      });
    });
    return { resourceNames, typeCount: this.rows.length, allocatable };
  }

  /** Whether the row's allocatable covers its daemon overhead (otherwise nothing can run there). */
  overheadFits(row: number): boolean {
    const r = this.rows[row] as CatalogRow<IT>;
    const alloc = r.instanceType.allocatable();
    const overhead = (this.daemonGroups[r.daemonGroup] as DaemonGroup).overhead;
    for (const name in overhead) if ((overhead[name] as number) > (alloc[name] ?? 0)) return false;
    return true;
  }

  /** Canonical text of `reqs` restricted to the keys instance types and offerings define. */
  signature(reqs: Requirements): string {
    let s = '';
    for (const key of this.keys) {
      if (!reqs.has(key)) continue;
      s += requirementSignature(reqs.get(key));
    }
    return s;
  }

  /**
   * Rows whose instance type intersects `reqs` and has an available offering intersecting them
   * (upstream's requirement and offering criteria of instance-type filtering). Cached; callers
   * must not modify the result.
   */
  requirementMask(reqs: Requirements): Uint32Array {
    const sig = this.signature(reqs);
    let mask = this.maskCache.get(sig);
    if (mask === undefined) {
      const typeOk: boolean[] = this.distinctTypes.map((it) => typeCompatible(it, reqs));
      mask = new Uint32Array(this.words);
      this.rows.forEach((row, t) => {
        if (typeOk[row.typeIndex] === true && hasBit(this.all, t)) setBit(mask as Uint32Array, t);
      });
      this.maskCache.set(sig, mask);
    }
    return mask;
  }

  /** Rows whose daemon group's host ports do not conflict with `ports`. Cached; do not modify. */
  hostPortMask(ports: readonly HostPort[]): Uint32Array {
    const sig = ports.map((p) => `${p.ip}:${p.port}/${p.protocol}`).join(',');
    let mask = this.portMaskCache.get(sig);
    if (mask === undefined) {
      mask = new Uint32Array(this.words);
      const okGroup = this.daemonGroups.map((g) => !anyHostPortConflict(ports, g.hostPorts));
      this.rows.forEach((row, t) => {
        if (okGroup[row.daemonGroup] === true && hasBit(this.all, t))
          setBit(mask as Uint32Array, t);
      });
      this.portMaskCache.set(sig, mask);
    }
    return mask;
  }

  /** The rows of a mask as catalog rows, ascending. */
  rowsOf(mask: Uint32Array): CatalogRow<IT>[] {
    const out: CatalogRow<IT>[] = [];
    forEachRow(mask, (t) => out.push(this.rows[t] as CatalogRow<IT>));
    return out;
  }
}

/**
 * Whether the instance type's requirements and one of its available offerings intersect `reqs`:
 * the test upstream's scheduler applies when it keeps a NodePool's instance types.
 */
export function typeCompatible(it: SchedulerInstanceType, reqs: Requirements): boolean {
  if (!reqs.isIntersecting(it.requirements)) return false;
  for (const o of it.offerings) if (o.available && reqs.isIntersecting(o.requirements)) return true;
  return false;
}

/** Canonical text of one requirement (key, complement, values, bounds), for cache keys. */
export function requirementSignature(r: Requirement): string {
  return `${r.key}${r.complement ? '!' : '='}${r.valuesList().join(',')}${
    r.greaterThanOrEqual === undefined ? '' : `>=${r.greaterThanOrEqual}`
  }${r.lessThanOrEqual === undefined ? '' : `<=${r.lessThanOrEqual}`};`;
}

/** Resource names, in catalog column order: cpu, memory, pods first, then the rest sorted. */
export function columnOrder(names: Iterable<string>): string[] {
  const first = ['cpu', 'memory', 'pods'];
  const rest = [...new Set(names)].filter((n) => !first.includes(n)).sort();
  return [...first, ...rest];
}

/** The requests as a solver vector in `columns` order. */
export function requestVector(requests: ResourceList, columns: readonly string[]): Float64Array {
  const v = new Float64Array(columns.length);
  columns.forEach((name, c) => {
    v[c] = requests[name] ?? 0;
  });
  return v;
}
