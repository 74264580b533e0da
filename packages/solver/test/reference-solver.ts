// A brute-force model of the Solver contract, written straight from the docstrings in
// src/types.ts with plain arrays and a full sort per query. It is deliberately naive: it is the
// specification the two real solvers are checked against.
import type { SolverCatalog } from '../src/index.js';

interface Claim {
  requests: number[];
  rows: Set<number>;
  pods: number;
  open: boolean;
}

export class ReferenceSolver {
  private readonly rows: number[][];
  private readonly claims: Claim[] = [];

  constructor(private readonly catalog: SolverCatalog) {
    const R = catalog.resourceNames.length;
    this.rows = [];
    for (let t = 0; t < catalog.typeCount; t++) {
      this.rows.push(Array.from(catalog.allocatable.subarray(t * R, (t + 1) * R)));
    }
  }

  get claimCount(): number {
    return this.claims.length;
  }

  private maskRows(mask: Uint32Array): Set<number> {
    const set = new Set<number>();
    for (let t = 0; t < this.catalog.typeCount; t++) {
      if (((mask[t >> 5]! >>> (t & 31)) & 1) === 1) set.add(t);
    }
    return set;
  }

  private toMask(set: Set<number>): Uint32Array {
    const mask = new Uint32Array(Math.ceil(this.catalog.typeCount / 32));
    for (const t of set) mask[t >> 5] = (mask[t >> 5]! | (1 << (t & 31))) >>> 0;
    return mask;
  }

  private fitRows(need: number[], candidates: Set<number>): Set<number> {
    return new Set([...candidates].filter((t) => need.every((v, r) => v <= this.rows[t]![r]!)));
  }

  fitTypes(requests: Float64Array, inMask: Uint32Array): { count: number; out: Uint32Array } {
    const fit = this.fitRows(Array.from(requests), this.maskRows(inMask));
    return { count: fit.size, out: this.toMask(fit) };
  }

  openClaim(requests: Float64Array, mask: Uint32Array): number {
    this.claims.push({
      requests: Array.from(requests),
      rows: this.maskRows(mask),
      pods: 0,
      open: true,
    });
    return this.claims.length - 1;
  }

  private sumWith(claim: number, requests: Float64Array): number[] {
    return this.claims[claim]!.requests.map((v, r) => v + requests[r]!);
  }

  findClaim(requests: Float64Array, podMask: Uint32Array, after: number): number {
    const podRows = this.maskRows(podMask);
    const key = (id: number): [number, number] => [this.claims[id]!.pods, id];
    const greater = (a: [number, number], b: [number, number]) =>
      a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
    const ordered = this.claims
      .map((_, id) => id)
      .filter((id) => this.claims[id]!.open)
      .filter((id) => after === -1 || greater(key(id), key(after)))
      .sort((a, b) => this.claims[a]!.pods - this.claims[b]!.pods || a - b);
    for (const id of ordered) {
      const candidates = new Set([...this.claims[id]!.rows].filter((t) => podRows.has(t)));
      if (this.fitRows(this.sumWith(id, requests), candidates).size > 0) return id;
    }
    return -1;
  }

  claimFit(
    claim: number,
    requests: Float64Array,
    podMask: Uint32Array,
  ): { count: number; out: Uint32Array } {
    const podRows = this.maskRows(podMask);
    const candidates = new Set([...this.claims[claim]!.rows].filter((t) => podRows.has(t)));
    const fit = this.fitRows(this.sumWith(claim, requests), candidates);
    return { count: fit.size, out: this.toMask(fit) };
  }

  commit(claim: number, requests: Float64Array, mask: Uint32Array): void {
    const c = this.claims[claim]!;
    c.requests = this.sumWith(claim, requests);
    c.pods += 1;
    c.rows = this.maskRows(mask);
  }

  claimFitCommit(
    claim: number,
    requests: Float64Array,
    podMask: Uint32Array,
  ): { count: number; out: Uint32Array } {
    const fit = this.claimFit(claim, requests, podMask);
    if (fit.count > 0) this.commit(claim, requests, fit.out);
    return fit;
  }

  openWithPod(requests: Float64Array, inMask: Uint32Array): { id: number; out: Uint32Array } {
    const fit = this.fitTypes(requests, inMask);
    if (fit.count === 0) return { id: -1, out: fit.out };
    const id = this.openClaim(new Float64Array(requests.length), fit.out);
    this.commit(id, requests, fit.out);
    return { id, out: fit.out };
  }

  close(claim: number): void {
    this.claims[claim]!.open = false;
  }

  claimRequests(claim: number): Float64Array {
    return Float64Array.from(this.claims[claim]!.requests);
  }

  claimMask(claim: number): Uint32Array {
    return this.toMask(this.claims[claim]!.rows);
  }

  claimPods(claim: number): number {
    return this.claims[claim]!.pods;
  }
}
