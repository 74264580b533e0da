import {
  checkAfter,
  checkClaim,
  checkMask,
  checkOrderRows,
  checkRequests,
} from './argument-checks.js';
import { validateCatalog } from './catalog-validation.js';
import { fitThresholds, thresholdSlots, type SolverOptions } from './fit-index.js';
import { lastWordMask, popcount32 as popcount } from './masks.js';
import { sortRowsByKeys } from './row-order.js';
import type { Solver, SolverCatalog } from './types.js';

const INITIAL_CLAIMS = 64;
const INITIAL_BUCKETS = 16;

// Index of the lowest set bit of a non-zero 32-bit word.
function ctz(bits: number): number {
  return 31 - Math.clz32(bits & -bits);
}

/**
 * The plain TypeScript twin of the WASM core (assembly/index.ts): the same struct-of-arrays
 * state, the same pod-count buckets and bounds, and therefore the same answers. It is the
 * reference the WASM build is tested against and the fallback where WASM is unavailable.
 *
 * State, all typed arrays (C = claim capacity, P = bucket capacity, R = resources, W = mask words):
 * allocatable T×R; per claim requests C×R, headroom C×R (max allocatable over the claim's
 * surviving rows, -Infinity with none), mask C×W, pod count C, open flag C; per pod count p a
 * bitset of open claims (P × C/32), a member count, an upper bound P×R of
 * `headroom - requests` over the members that `findClaim` tightens when it scans a bucket fully,
 * and the exact maximum of `headroom - requests` over each 32-claim word of each bucket
 * (P × C/32 × R), which lets `findClaim` skip 32 claims with one O(R) check; a summary
 * bitset per bucket (P × C/1024) marks the words that have members, so empty words cost nothing.
 */
export class TsSolver implements Solver {
  readonly kind = 'ts' as const;
  typeCount = 0;
  resourceCount = 0;
  maskWords = 0;
  claimCount = 0;

  private lastMask = 0;
  private allocatable = new Float64Array(0);
  private bound = new Float64Array(0);
  private sumBuf = new Float64Array(0);

  private claimCap = 0;
  private claimWords = 0;
  private requests = new Float64Array(0);
  private headroom = new Float64Array(0);
  private masks = new Uint32Array(0);
  private pods = new Int32Array(0);
  private open = new Uint8Array(0);

  private bucketCap = 0;
  private bucketTop = 0;
  private bucketBits = new Uint32Array(0);
  private bucketCount = new Int32Array(0);
  private bucketMax = new Float64Array(0);
  private wordMax = new Float64Array(0);
  private summaryWords = 0;
  private summary = new Uint32Array(0);

  // fit index (README "Fit index"): per resource `slots` ascending thresholds (+Infinity padded)
  // and, per threshold, the mask of rows whose allocatable reaches it
  private readonly maxThresholds: number | undefined;
  private slots = 0;
  private thresholds = new Float64Array(0);
  private ge = new Uint32Array(0);
  private check = new Uint32Array(0);
  private fitBuf = new Uint32Array(0);

  /** @throws RangeError for an out-of-range `options.maxThresholds`. */
  constructor(options: SolverOptions = {}) {
    this.maxThresholds = options.maxThresholds;
    thresholdSlots(1, 1, options.maxThresholds);
    this.reset(0, 0);
  }

  load(catalog: SolverCatalog): void {
    const shape = validateCatalog(catalog);
    const { typeCount: T, resourceCount: R } = shape;
    this.reset(T, R);
    this.allocatable = Float64Array.from(catalog.allocatable);
    const W = this.maskWords;
    const S = thresholdSlots(R, W, this.maxThresholds);
    const thr = fitThresholds(this.allocatable, T, R, R, S);
    const ge = new Uint32Array(R * S * W);
    for (let t = 0; t < T; t++) {
      const bit = 1 << (t & 31);
      for (let r = 0; r < R; r++) {
        const a = this.allocatable[t * R + r]!;
        for (let q = 0; q < S && thr[r * S + q]! <= a; q++) ge[(r * S + q) * W + (t >>> 5)]! |= bit;
      }
    }
    this.slots = S;
    this.thresholds = thr;
    this.ge = ge;
  }

  fitTypes(requests: Float64Array, inMask: Uint32Array, out: Uint32Array): number {
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(inMask, this.maskWords, 'inMask');
    checkMask(out, this.maskWords, 'out');
    return this.fitRows(requests, inMask, 0, undefined, out);
  }

  openClaim(requests: Float64Array, mask: Uint32Array): number {
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(mask, this.maskWords, 'mask');
    if (this.claimCount === this.claimCap) this.growClaims(this.claimCap * 2);
    const id = this.claimCount++;
    this.requests.set(requests, id * this.resourceCount);
    this.storeMask(id, mask);
    this.pods[id] = 0;
    this.open[id] = 1;
    this.computeHeadroom(id);
    this.bucketAdd(id);
    return id;
  }

  findClaim(requests: Float64Array, podMask: Uint32Array, after: number): number {
    const R = this.resourceCount;
    checkRequests(requests, R, 'requests');
    checkMask(podMask, this.maskWords, 'podMask');
    checkAfter(after, this.claimCount);
    const { bucketBits, bucketCount, bucketMax, wordMax, headroom, bound } = this;
    const claimReq = this.requests;
    const words = this.claimWords;
    const { summary, summaryWords: sums } = this;
    let p = 0;
    let startId = 0;
    if (after >= 0) {
      p = this.pods[after]!;
      startId = after + 1;
    }
    for (; p <= this.bucketTop; p++, startId = 0) {
      if (bucketCount[p] === 0) continue;
      if (!fits(requests, bucketMax, p * R, R)) continue;
      // a full scan that finds nothing recomputes the bucket's bound from the word bounds
      const full = startId === 0;
      if (full) bound.fill(-Infinity);
      const firstWord = startId >>> 5;
      // walk only words with members, through the summary bitset
      for (let sw = firstWord >>> 5; sw < sums; sw++) {
        let ws = summary[p * sums + sw]!;
        if (sw === firstWord >>> 5) ws &= 0xffffffff << (firstWord & 31);
        while (ws !== 0) {
          const w = (sw << 5) + ctz(ws);
          ws &= ws - 1;
          let bits = bucketBits[p * words + w]!;
          if (w === firstWord) bits &= 0xffffffff << (startId & 31);
          if (bits === 0) continue;
          const wb = (p * words + w) * R;
          if (full) for (let r = 0; r < R; r++) bound[r] = Math.max(bound[r]!, wordMax[wb + r]!);
          // skip 32 claims at once when none of them has the room
          if (!fits(requests, wordMax, wb, R)) continue;
          while (bits !== 0) {
            const c = (w << 5) + ctz(bits);
            bits &= bits - 1;
            const base = c * R;
            // quick rejection: the pod must fit the claim's per-resource maximum
            let quick = true;
            for (let r = 0; r < R; r++) {
              if (!(claimReq[base + r]! + requests[r]! <= headroom[base + r]!)) {
                quick = false;
                break;
              }
            }
            if (quick && this.claimHasFit(c, requests, podMask)) return c;
          }
        }
      }
      if (full) bucketMax.set(bound, p * R);
    }
    return -1;
  }

  claimFit(claim: number, requests: Float64Array, podMask: Uint32Array, out: Uint32Array): number {
    const R = this.resourceCount;
    const W = this.maskWords;
    checkClaim(claim, this.claimCount);
    checkRequests(requests, R, 'requests');
    checkMask(podMask, W, 'podMask');
    checkMask(out, W, 'out');
    return this.fitRows(this.sumOf(claim, requests), this.masks, claim * W, podMask, out);
  }

  commit(claim: number, requests: Float64Array, mask: Uint32Array): void {
    const R = this.resourceCount;
    checkClaim(claim, this.claimCount);
    checkRequests(requests, R, 'requests');
    checkMask(mask, this.maskWords, 'mask');
    const isOpen = this.open[claim] === 1;
    if (isOpen) this.bucketRemove(claim);
    for (let r = 0; r < R; r++) this.requests[claim * R + r]! += requests[r]!;
    this.pods[claim]! += 1;
    if (this.storeMaskNeedsHeadroom(claim, mask)) this.computeHeadroom(claim);
    if (isOpen) this.bucketAdd(claim);
  }

  claimFitCommit(
    claim: number,
    requests: Float64Array,
    podMask: Uint32Array,
    out: Uint32Array,
  ): number {
    const n = this.claimFit(claim, requests, podMask, out);
    if (n > 0) this.commit(claim, requests, out);
    return n;
  }

  openWithPod(requests: Float64Array, inMask: Uint32Array, out: Uint32Array): number {
    if (this.fitTypes(requests, inMask, out) === 0) return -1;
    if (this.claimCount === this.claimCap) this.growClaims(this.claimCap * 2);
    const id = this.claimCount++;
    this.requests.set(requests, id * this.resourceCount);
    this.storeMask(id, out);
    this.pods[id] = 1;
    this.open[id] = 1;
    this.computeHeadroom(id);
    this.bucketAdd(id);
    return id;
  }

  // The core's algorithm (row-order.ts): insertion-sorted runs of 16, then bottom-up merges.
  orderRows(keys: Float64Array, width: number, order: Int32Array): void {
    checkOrderRows(keys, width, order);
    sortRowsByKeys(keys, width, order);
  }

  close(claim: number): void {
    checkClaim(claim, this.claimCount);
    if (this.open[claim] !== 1) return;
    this.bucketRemove(claim);
    this.open[claim] = 0;
  }

  claimRequests(claim: number): Float64Array {
    checkClaim(claim, this.claimCount);
    const R = this.resourceCount;
    return this.requests.slice(claim * R, claim * R + R);
  }

  claimMask(claim: number): Uint32Array {
    checkClaim(claim, this.claimCount);
    const W = this.maskWords;
    return this.masks.slice(claim * W, claim * W + W);
  }

  claimPods(claim: number): number {
    checkClaim(claim, this.claimCount);
    return this.pods[claim]!;
  }

  private reset(typeCount: number, resourceCount: number): void {
    this.typeCount = typeCount;
    this.resourceCount = resourceCount;
    this.maskWords = (typeCount + 31) >>> 5;
    this.lastMask = lastWordMask(typeCount);
    this.allocatable = new Float64Array(typeCount * resourceCount);
    this.sumBuf = new Float64Array(resourceCount);
    this.bound = new Float64Array(resourceCount);
    this.check = new Uint32Array(this.maskWords);
    this.fitBuf = new Uint32Array(this.maskWords);
    this.slots = 0;
    this.thresholds = new Float64Array(0);
    this.ge = new Uint32Array(0);
    this.claimCount = 0;
    this.claimCap = 0;
    this.claimWords = 0;
    this.bucketCap = 0;
    this.bucketTop = 0;
    this.bucketBits = new Uint32Array(0);
    this.summaryWords = 0;
    this.growClaims(INITIAL_CLAIMS);
    this.growBuckets(INITIAL_BUCKETS);
  }

  private growClaims(cap: number): void {
    const R = this.resourceCount;
    const W = this.maskWords;
    const words = cap >>> 5;
    const grow = <A extends Float64Array | Uint32Array | Int32Array | Uint8Array>(
      old: A,
      fresh: A,
    ): A => {
      fresh.set(old.subarray(0, Math.min(old.length, fresh.length)) as never);
      return fresh;
    };
    this.requests = grow(this.requests, new Float64Array(cap * R));
    this.headroom = grow(this.headroom, new Float64Array(cap * R));
    this.masks = grow(this.masks, new Uint32Array(cap * W));
    this.pods = grow(this.pods, new Int32Array(cap));
    this.open = grow(this.open, new Uint8Array(cap));
    const bits = new Uint32Array(this.bucketCap * words);
    const wordMax = new Float64Array(this.bucketCap * words * R).fill(-Infinity);
    const sums = (words + 31) >>> 5;
    const summary = new Uint32Array(this.bucketCap * sums);
    for (let p = 0; p < this.bucketCap; p++) {
      const from = p * this.claimWords;
      bits.set(this.bucketBits.subarray(from, from + this.claimWords), p * words);
      wordMax.set(this.wordMax.subarray(from * R, (from + this.claimWords) * R), p * words * R);
      const at = p * this.summaryWords;
      summary.set(this.summary.subarray(at, at + this.summaryWords), p * sums);
    }
    this.bucketBits = bits;
    this.wordMax = wordMax;
    this.summary = summary;
    this.summaryWords = sums;
    this.claimCap = cap;
    this.claimWords = words;
  }

  private growBuckets(cap: number): void {
    const R = this.resourceCount;
    const bits = new Uint32Array(cap * this.claimWords);
    bits.set(this.bucketBits);
    const count = new Int32Array(cap);
    count.set(this.bucketCount.subarray(0, this.bucketCap));
    const max = new Float64Array(cap * R).fill(-Infinity);
    max.set(this.bucketMax.subarray(0, this.bucketCap * R));
    const wordMax = new Float64Array(cap * this.claimWords * R).fill(-Infinity);
    wordMax.set(this.wordMax.subarray(0, this.bucketCap * this.claimWords * R));
    const summary = new Uint32Array(cap * this.summaryWords);
    summary.set(this.summary.subarray(0, this.bucketCap * this.summaryWords));
    this.bucketBits = bits;
    this.wordMax = wordMax;
    this.summary = summary;
    this.bucketCount = count;
    this.bucketMax = max;
    this.bucketCap = cap;
  }

  // Stores the mask with bits at or beyond typeCount cleared; returns whether anything changed.
  private storeMask(claim: number, mask: Uint32Array): boolean {
    const W = this.maskWords;
    const masks = this.masks;
    let changed = false;
    for (let w = 0; w < W; w++) {
      const m = (w === W - 1 ? mask[w]! & this.lastMask : mask[w]!) >>> 0;
      if (masks[claim * W + w] !== m) {
        masks[claim * W + w] = m;
        changed = true;
      }
    }
    return changed;
  }

  // Stores the claim's new mask and says whether the headroom must be recomputed: only when a
  // row was added, or a removed row attained the headroom in some resource. Pods usually just
  // drop a few small rows, or none.
  private storeMaskNeedsHeadroom(claim: number, mask: Uint32Array): boolean {
    const W = this.maskWords;
    const R = this.resourceCount;
    const masks = this.masks;
    const alloc = this.allocatable;
    const head = this.headroom;
    let rescan = false;
    for (let w = 0; w < W; w++) {
      const m = (w === W - 1 ? mask[w]! & this.lastMask : mask[w]!) >>> 0;
      const old = masks[claim * W + w]!;
      if (old === m) continue;
      masks[claim * W + w] = m;
      if (rescan) continue;
      if ((m & ~old) !== 0) {
        rescan = true;
        continue;
      }
      let removed = old & ~m;
      while (removed !== 0 && !rescan) {
        const t = (w << 5) + ctz(removed);
        removed &= removed - 1;
        for (let r = 0; r < R; r++) {
          if (alloc[t * R + r]! >= head[claim * R + r]!) {
            rescan = true;
            break;
          }
        }
      }
    }
    return rescan;
  }

  // Per resource, the highest threshold slot whose mask meets the claim's rows bounds the max;
  // only the claim's rows between it and the next slot are read.
  private computeHeadroom(claim: number): void {
    const R = this.resourceCount;
    const W = this.maskWords;
    const S = this.slots;
    const { allocatable: alloc, headroom: head, masks, ge } = this;
    const base = claim * R;
    const m = claim * W;
    let any = false;
    for (let w = 0; w < W && !any; w++) any = masks[m + w] !== 0;
    if (!any) {
      head.fill(-Infinity, base, base + R);
      return;
    }
    for (let r = 0; r < R; r++) {
      // slot 0 holds every row, the last (+Infinity) none: find the highest slot meeting the mask
      let lo = 0;
      let hi = S - 1;
      while (hi - lo > 1) {
        const mid = (lo + hi) >>> 1;
        const g = (r * S + mid) * W;
        let meets = false;
        for (let w = 0; w < W; w++) {
          if ((masks[m + w]! & ge[g + w]!) !== 0) {
            meets = true;
            break;
          }
        }
        if (meets) lo = mid;
        else hi = mid;
      }
      const g = (r * S + lo) * W;
      let best = -Infinity;
      for (let w = 0; w < W; w++) {
        let bits = masks[m + w]! & ge[g + w]! & ~ge[g + W + w]!;
        while (bits !== 0) {
          const t = (w << 5) + ctz(bits);
          bits &= bits - 1;
          best = Math.max(best, alloc[t * R + r]!);
        }
      }
      head[base + r] = best;
    }
  }

  // out = a[aAt..] & b (when given) & the rows whose allocatable covers `need`; returns the
  // count. Per resource, rows at or above the threshold just below the need pass or fail by
  // word ANDs; only rows between that threshold and the next are checked exactly.
  private fitRows(
    need: Float64Array,
    a: Uint32Array,
    aAt: number,
    b: Uint32Array | undefined,
    out: Uint32Array,
  ): number {
    const R = this.resourceCount;
    const W = this.maskWords;
    const S = this.slots;
    const { thresholds: thr, ge, check, allocatable: alloc } = this;
    for (let w = 0; w < W; w++) {
      let m = b === undefined ? a[aAt + w]! : a[aAt + w]! & b[w]!;
      if (w === W - 1) m &= this.lastMask;
      out[w] = m;
      check[w] = 0;
    }
    for (let r = 0; r < R; r++) {
      const n = need[r]!;
      // q: the last slot whose threshold is at or below n (-1: n is below every row)
      let lo = 0;
      let hi = S;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (thr[r * S + mid]! <= n) lo = mid + 1;
        else hi = mid;
      }
      const q = lo - 1;
      if (q < 0) continue;
      const g = (r * S + q) * W;
      if (thr[r * S + q] === n) {
        for (let w = 0; w < W; w++) out[w]! &= ge[g + w]!;
      } else {
        for (let w = 0; w < W; w++) {
          const x = ge[g + w]!;
          out[w]! &= x;
          check[w]! |= x & ~ge[g + W + w]!;
        }
      }
    }
    let count = 0;
    for (let w = 0; w < W; w++) {
      let m = out[w]!;
      let bits = m & check[w]!;
      while (bits !== 0) {
        const b = ctz(bits);
        bits &= bits - 1;
        if (!fits(need, alloc, ((w << 5) + b) * R, R)) m &= ~(1 << b);
      }
      out[w] = m;
      count += popcount(m);
    }
    return count;
  }

  private bucketAdd(claim: number): void {
    const p = this.pods[claim]!;
    if (p >= this.bucketCap) {
      let cap = this.bucketCap;
      while (cap <= p) cap *= 2;
      this.growBuckets(cap);
    }
    if (p > this.bucketTop) this.bucketTop = p;
    const w = claim >>> 5;
    this.bucketBits[p * this.claimWords + w]! |= 1 << (claim & 31);
    this.summary[p * this.summaryWords + (w >>> 5)]! |= 1 << (w & 31);
    this.bucketCount[p]! += 1;
    this.maxInSlack(this.wordMax, (p * this.claimWords + w) * this.resourceCount, claim);
    // the bucket bound only loosens here; findClaim tightens it on full scans
    this.maxInSlack(this.bucketMax, p * this.resourceCount, claim);
  }

  private bucketRemove(claim: number): void {
    const R = this.resourceCount;
    const p = this.pods[claim]!;
    const w = claim >>> 5;
    const at = p * this.claimWords + w;
    let bits = (this.bucketBits[at]! &= ~(1 << (claim & 31)));
    if (bits === 0) this.summary[p * this.summaryWords + (w >>> 5)]! &= ~(1 << (w & 31));
    // word bounds stay exact: if the claim set the bound in some resource, recompute it over the
    // (at most 31) remaining members; otherwise the others already attain it
    if (this.attainsBound(claim, at * R)) {
      this.wordMax.fill(-Infinity, at * R, at * R + R);
      while (bits !== 0) {
        this.maxInSlack(this.wordMax, at * R, (w << 5) + ctz(bits));
        bits &= bits - 1;
      }
    }
    const left = (this.bucketCount[p]! -= 1);
    if (left === 0) this.bucketMax.fill(-Infinity, p * R, p * R + R);
  }

  // Is headroom - requests of `claim` equal to wordMax[offset + r] for some r?
  private attainsBound(claim: number, offset: number): boolean {
    const R = this.resourceCount;
    for (let r = 0; r < R; r++) {
      const slack = this.headroom[claim * R + r]! - this.requests[claim * R + r]!;
      if (slack >= this.wordMax[offset + r]!) return true;
    }
    return false;
  }

  // dst[offset + r] = max(dst[offset + r], headroom - requests of `claim`)
  private maxInSlack(dst: Float64Array, offset: number, claim: number): void {
    const R = this.resourceCount;
    for (let r = 0; r < R; r++) {
      const slack = this.headroom[claim * R + r]! - this.requests[claim * R + r]!;
      dst[offset + r] = Math.max(dst[offset + r]!, slack);
    }
  }

  private sumOf(claim: number, requests: Float64Array): Float64Array {
    const R = this.resourceCount;
    const sum = this.sumBuf;
    for (let r = 0; r < R; r++) sum[r] = this.requests[claim * R + r]! + requests[r]!;
    return sum;
  }

  // Is there a row in claimMask & podMask covering claimRequests + requests?
  private claimHasFit(claim: number, requests: Float64Array, podMask: Uint32Array): boolean {
    const sum = this.sumOf(claim, requests);
    return this.fitRows(sum, this.masks, claim * this.maskWords, podMask, this.fitBuf) > 0;
  }
}

// Does need[r] <= have[offset + r] hold for every r?
function fits(need: Float64Array, have: Float64Array, offset: number, R: number): boolean {
  for (let r = 0; r < R; r++) if (!(need[r]! <= have[offset + r]!)) return false;
  return true;
}

/**
 * A fresh TypeScript solver with an empty catalog; call `load` before use.
 * @throws RangeError for an out-of-range `options.maxThresholds`.
 */
export function createTsSolver(options: SolverOptions = {}): TsSolver {
  return new TsSolver(options);
}
