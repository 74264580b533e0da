// The solver core in AssemblyScript, compiled to build/solver.wasm (see ../README.md).
//
// Everything lives in linear memory as struct-of-arrays regions carved from a bump arena that
// `reset` rewinds. The host (src/wasm-solver.ts) writes one pod's requests and one mask into
// fixed scratch regions and then calls an export; nothing is allocated per call.
//
// Resource vectors use a stride of `RP` = resourceCount rounded up to even, so rows and request
// vectors are whole f64x2 lanes; padding lanes hold 0 in every vector, and 0 <= 0 keeps them
// neutral in fit checks. Headroom padding is also 0 (or -inf for a claim with no rows left).

// ---- layout -----------------------------------------------------------------------------------

let T: i32 = 0; // catalog rows
let R: i32 = 0; // resources
let RP: i32 = 0; // resource stride (R rounded up to even)
let W: i32 = 0; // mask words = ceil(T / 32)
let lastWordMask: u32 = 0; // valid bits of word W-1

let arenaTop: usize = 0;

// scratch regions the host writes/reads
let reqP: usize = 0; // RP f64: the pod's requests
let maskP: usize = 0; // W u32: the pod's (or claim's) mask
let outP: usize = 0; // W u32: result mask
let sumP: usize = 0; // RP f64: claim requests + pod requests (internal)
let boundP: usize = 0; // RP f64: a bucket bound being recomputed (internal)
let allocP: usize = 0; // T*RP f64: allocatable, row-major

// fit index (README "Fit index"), laid out by `indexAlloc` after the host wrote allocatable
let S: i32 = 0; // threshold slots per resource (the last is +inf with an empty mask)
let thrP: usize = 0; // R*S f64: ascending thresholds per resource, +inf padded
let geP: usize = 0; // R*S*W u32: rows with allocatable >= threshold, per resource and slot
let chkP: usize = 0; // W u32: rows that need an exact check (internal)
let fitP: usize = 0; // W u32: rows that fit, for claimHasFit (internal)

// claims, capacity cCap (a multiple of 32), cWords = cCap / 32
let cCap: i32 = 0;
let cWords: i32 = 0;
let cCount: i32 = 0;
let creqP: usize = 0; // cCap*RP f64: summed requests
let headP: usize = 0; // cCap*RP f64: max allocatable over surviving rows (-inf if none)
let cmaskP: usize = 0; // cCap*W u32: option masks
let podsP: usize = 0; // cCap i32: pod counts
let openP: usize = 0; // cCap u8: 1 while open

// buckets by pod count, capacity pCap; pTop = highest pod count any open claim has had
let pCap: i32 = 0;
let pTop: i32 = 0;
let bbitsP: usize = 0; // pCap*cWords u32: members of each bucket, bit per claim id
let bcountP: usize = 0; // pCap i32: members per bucket
let bmaxP: usize = 0; // pCap*RP f64: upper bound of (headroom - requests) over members
let wmaxP: usize = 0; // pCap*cWords*RP f64: exact max of (headroom - requests) per bucket word
let sWords: i32 = 0; // summary words per bucket = ceil(cWords / 32)
let bsumP: usize = 0; // pCap*sWords u32: bit w set iff word w of the bucket has members

// ---- arena ------------------------------------------------------------------------------------

function arenaAlloc(bytes: usize): usize {
  const ptr = (arenaTop + 15) & ~(<usize>15);
  const end = ptr + bytes;
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >>> 16);
    if (memory.grow(max(pages, memory.size())) < 0) {
      if (memory.grow(pages) < 0) unreachable();
    }
  }
  arenaTop = end;
  return ptr;
}

function fillF64(ptr: usize, count: i32, value: f64): void {
  for (let i = 0; i < count; i++) store<f64>(ptr + (<usize>i << 3), value);
}

// ---- host API: layout ---------------------------------------------------------------------------

/** Forgets everything and lays out a catalog of `typeCount` rows × `resourceCount` columns. */
export function reset(typeCount: i32, resourceCount: i32): void {
  arenaTop = __heap_base;
  T = typeCount;
  R = resourceCount;
  RP = (resourceCount + 1) & ~1;
  W = (typeCount + 31) >>> 5;
  lastWordMask = typeCount & 31 ? (<u32>1 << (typeCount & 31)) - 1 : 0xffffffff;
  reqP = arenaAlloc(<usize>RP << 3);
  sumP = arenaAlloc(<usize>RP << 3);
  boundP = arenaAlloc(<usize>RP << 3);
  maskP = arenaAlloc(<usize>W << 2);
  outP = arenaAlloc(<usize>W << 2);
  allocP = arenaAlloc((<usize>T * RP) << 3);
  chkP = arenaAlloc(<usize>W << 2);
  fitP = arenaAlloc(<usize>W << 2);
  memory.fill(reqP, 0, arenaTop - reqP);
  S = 0;
  cCap = 0;
  cWords = 0;
  cCount = 0;
  pCap = 0;
  pTop = 0;
  sWords = 0;
  sortCap = 0;
  sortWidthCap = 0;
  growClaims(64);
  growBuckets(16);
}

export function stride(): i32 {
  return RP;
}
export function requestsPtr(): usize {
  return reqP;
}
export function maskPtr(): usize {
  return maskP;
}
export function outPtr(): usize {
  return outP;
}
export function allocatablePtr(): usize {
  return allocP;
}
export function claimCount(): i32 {
  return cCount;
}
export function claimRequestsPtr(claim: i32): usize {
  return creqP + ((<usize>claim * RP) << 3);
}
export function claimMaskPtr(claim: i32): usize {
  return cmaskP + ((<usize>claim * W) << 2);
}
export function claimPods(claim: i32): i32 {
  return load<i32>(podsP + (<usize>claim << 2));
}

/** Lays out the fit index with `slots` thresholds per resource; returns where the host writes them. */
export function indexAlloc(slots: i32): usize {
  S = slots;
  thrP = arenaAlloc((<usize>R * S) << 3);
  geP = arenaAlloc((<usize>R * S * W) << 2);
  return thrP;
}

/** Builds the index masks from allocatable and the thresholds the host wrote. */
export function indexBuild(): void {
  memory.fill(geP, 0, (<usize>R * S * W) << 2);
  for (let t = 0; t < T; t++) {
    const row = rowPtr(t);
    const bit = <u32>1 << (t & 31);
    const wOff = <usize>(t >>> 5) << 2;
    for (let r = 0; r < R; r++) {
      const a = load<f64>(row + (<usize>r << 3));
      const thr = thrP + ((<usize>r * S) << 3);
      const ge = geP + ((<usize>r * S * W) << 2) + wOff;
      for (let q = 0; q < S; q++) {
        if (!(load<f64>(thr + (<usize>q << 3)) <= a)) break;
        const at = ge + ((<usize>q * W) << 2);
        store<u32>(at, load<u32>(at) | bit);
      }
    }
  }
}

// ---- growth -------------------------------------------------------------------------------------

function growClaims(newCap: i32): void {
  const newWords = newCap >>> 5;
  const vecBytes = (<usize>RP) << 3;
  const creq = arenaAlloc(<usize>newCap * vecBytes);
  const head = arenaAlloc(<usize>newCap * vecBytes);
  const cmask = arenaAlloc((<usize>newCap * W) << 2);
  const pods = arenaAlloc(<usize>newCap << 2);
  const open = arenaAlloc(<usize>newCap);
  const bbits = arenaAlloc((<usize>pCap * newWords) << 2);
  const wmax = arenaAlloc((<usize>pCap * newWords * RP) << 3);
  fillF64(wmax, pCap * newWords * RP, -Infinity);
  const newSum = (newWords + 31) >>> 5;
  const bsum = arenaAlloc((<usize>pCap * newSum) << 2);
  memory.fill(bsum, 0, (<usize>pCap * newSum) << 2);
  if (cCount > 0) {
    memory.copy(creq, creqP, <usize>cCount * vecBytes);
    memory.copy(head, headP, <usize>cCount * vecBytes);
    memory.copy(cmask, cmaskP, (<usize>cCount * W) << 2);
    memory.copy(pods, podsP, <usize>cCount << 2);
    memory.copy(open, openP, <usize>cCount);
  }
  memory.fill(bbits, 0, (<usize>pCap * newWords) << 2);
  for (let p = 0; p < pCap; p++) {
    memory.copy(bbits + ((<usize>p * newWords) << 2), bbitsP + ((<usize>p * cWords) << 2), <usize>cWords << 2);
    memory.copy(
      wmax + ((<usize>p * newWords * RP) << 3),
      wmaxP + ((<usize>p * cWords * RP) << 3),
      (<usize>cWords * RP) << 3,
    );
    memory.copy(bsum + ((<usize>p * newSum) << 2), bsumP + ((<usize>p * sWords) << 2), <usize>sWords << 2);
  }
  creqP = creq;
  headP = head;
  cmaskP = cmask;
  podsP = pods;
  openP = open;
  bbitsP = bbits;
  wmaxP = wmax;
  bsumP = bsum;
  sWords = newSum;
  cCap = newCap;
  cWords = newWords;
}

function growBuckets(newCap: i32): void {
  const bbits = arenaAlloc((<usize>newCap * cWords) << 2);
  const bcount = arenaAlloc(<usize>newCap << 2);
  const bmax = arenaAlloc((<usize>newCap * RP) << 3);
  const wmax = arenaAlloc((<usize>newCap * cWords * RP) << 3);
  fillF64(wmax, newCap * cWords * RP, -Infinity);
  const bsum = arenaAlloc((<usize>newCap * sWords) << 2);
  memory.fill(bsum, 0, (<usize>newCap * sWords) << 2);
  memory.fill(bbits, 0, (<usize>newCap * cWords) << 2);
  memory.fill(bcount, 0, <usize>newCap << 2);
  fillF64(bmax, newCap * RP, -Infinity);
  if (pCap > 0) {
    memory.copy(bbits, bbitsP, (<usize>pCap * cWords) << 2);
    memory.copy(bcount, bcountP, <usize>pCap << 2);
    memory.copy(bmax, bmaxP, (<usize>pCap * RP) << 3);
    memory.copy(wmax, wmaxP, (<usize>pCap * cWords * RP) << 3);
    memory.copy(bsum, bsumP, (<usize>pCap * sWords) << 2);
  }
  bbitsP = bbits;
  bcountP = bcount;
  bmaxP = bmax;
  wmaxP = wmax;
  bsumP = bsum;
  pCap = newCap;
}

// ---- vector helpers -------------------------------------------------------------------------------

// @ts-ignore: decorator
@inline function vecFits(need: usize, have: usize): bool {
  for (let k = 0; k < RP; k += 2) {
    const off = <usize>k << 3;
    if (!i64x2.all_true(f64x2.le(v128.load(need + off), v128.load(have + off)))) return false;
  }
  return true;
}

// sum = a + b, RP lanes
// @ts-ignore: decorator
@inline function vecAdd(sum: usize, a: usize, b: usize): void {
  for (let k = 0; k < RP; k += 2) {
    const off = <usize>k << 3;
    v128.store(sum + off, f64x2.add(v128.load(a + off), v128.load(b + off)));
  }
}

// Does `claimRequests + pod requests <= headroom` hold? (the O(R) quick rejection)
// @ts-ignore: decorator
@inline function headroomFits(claim: i32, req: usize): bool {
  const base = (<usize>claim * RP) << 3;
  const c = creqP + base;
  const h = headP + base;
  for (let k = 0; k < RP; k += 2) {
    const off = <usize>k << 3;
    const s = f64x2.add(v128.load(c + off), v128.load(req + off));
    if (!i64x2.all_true(f64x2.le(s, v128.load(h + off)))) return false;
  }
  return true;
}

function rowPtr(t: i32): usize {
  return allocP + ((<usize>t * RP) << 3);
}

// Slots of resource r's thresholds at or below `n`, minus one: -1 when n is below them all.
// @ts-ignore: decorator
@inline function slotAtOrBelow(r: i32, n: f64): i32 {
  const thr = thrP + ((<usize>r * S) << 3);
  let lo = 0;
  let hi = S;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (load<f64>(thr + (<usize>mid << 3)) <= n) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

// @ts-ignore: decorator
@inline function geMask(r: i32, q: i32): usize {
  return geP + ((<usize>(r * S + q) * W) << 2);
}

// out = a & b (b = 0: a alone) & rows whose allocatable covers `need`; returns the count.
// Per resource, rows at or above the threshold just below the need pass or fail by word ANDs;
// only rows between that threshold and the next are checked exactly.
function fitRows(need: usize, a: usize, b: usize, out: usize): i32 {
  for (let w = 0; w < W; w++) {
    const o = <usize>w << 2;
    let m = load<u32>(a + o);
    if (b) m &= load<u32>(b + o);
    if (w == W - 1) m &= lastWordMask;
    store<u32>(out + o, m);
    store<u32>(chkP + o, 0);
  }
  for (let r = 0; r < R; r++) {
    const n = load<f64>(need + (<usize>r << 3));
    const q = slotAtOrBelow(r, n);
    if (q < 0) continue; // below every row's allocatable
    const ge = geMask(r, q);
    if (load<f64>(thrP + ((<usize>(r * S + q)) << 3)) == n) {
      for (let w = 0; w < W; w++) {
        const o = <usize>w << 2;
        store<u32>(out + o, load<u32>(out + o) & load<u32>(ge + o));
      }
    } else {
      const next = ge + (<usize>W << 2);
      for (let w = 0; w < W; w++) {
        const o = <usize>w << 2;
        const g = load<u32>(ge + o);
        store<u32>(out + o, load<u32>(out + o) & g);
        store<u32>(chkP + o, load<u32>(chkP + o) | (g & ~load<u32>(next + o)));
      }
    }
  }
  let count = 0;
  for (let w = 0; w < W; w++) {
    const o = <usize>w << 2;
    let m = load<u32>(out + o);
    let bits = m & load<u32>(chkP + o);
    while (bits) {
      const b = ctz(bits);
      bits &= bits - 1;
      if (!vecFits(need, rowPtr((w << 5) + <i32>b))) m &= ~(<u32>1 << b);
    }
    store<u32>(out + o, m);
    count += <i32>popcnt(m);
  }
  return count;
}

// Recomputes a claim's headroom from its mask: per-resource max over rows, -inf with no rows.
// Per resource, the highest threshold slot whose mask meets the claim's rows bounds the max;
// only the claim's rows between it and the next slot are read.
function computeHeadroom(claim: i32): void {
  const h = headP + ((<usize>claim * RP) << 3);
  const m = cmaskP + ((<usize>claim * W) << 2);
  let any = false;
  for (let w = 0; w < W; w++) {
    if (load<u32>(m + (<usize>w << 2))) {
      any = true;
      break;
    }
  }
  if (!any) {
    fillF64(h, RP, -Infinity);
    return;
  }
  if (RP > R) store<f64>(h + (<usize>R << 3), 0);
  for (let r = 0; r < R; r++) {
    // slot 0 holds every row; the last (+inf) none: find the highest slot meeting the mask
    let lo = 0;
    let hi = S - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      const ge = geMask(r, mid);
      let meets = false;
      for (let w = 0; w < W; w++) {
        const o = <usize>w << 2;
        if (load<u32>(m + o) & load<u32>(ge + o)) {
          meets = true;
          break;
        }
      }
      if (meets) lo = mid;
      else hi = mid;
    }
    const ge = geMask(r, lo);
    const next = ge + (<usize>W << 2);
    let best = -Infinity;
    for (let w = 0; w < W; w++) {
      const o = <usize>w << 2;
      let bits = load<u32>(m + o) & load<u32>(ge + o) & ~load<u32>(next + o);
      while (bits) {
        const t = (w << 5) + <i32>ctz(bits);
        bits &= bits - 1;
        best = max(best, load<f64>(rowPtr(t) + (<usize>r << 3)));
      }
    }
    store<f64>(h + (<usize>r << 3), best);
  }
}

// Copies the mask at `src` into `dst`, clearing bits at or beyond typeCount; returns whether
// anything changed.
function storeMask(dst: usize, src: usize): bool {
  let changed = false;
  for (let w = 0; w < W; w++) {
    let m = load<u32>(src + (<usize>w << 2));
    if (w == W - 1) m &= lastWordMask;
    const at = dst + (<usize>w << 2);
    if (load<u32>(at) != m) {
      store<u32>(at, m);
      changed = true;
    }
  }
  return changed;
}

// Does row `t` reach the claim's headroom in some (real) resource? A row that does not can
// leave the claim's options without changing the headroom.
// @ts-ignore: decorator
@inline function rowAttains(t: i32, h: usize): bool {
  const row = rowPtr(t);
  for (let k = 0; k < RP; k += 2) {
    const off = <usize>k << 3;
    const ge = f64x2.ge(v128.load(row + off), v128.load(h + off));
    // with an odd resource count the last pair's second lane is padding: ignore it
    if (k + 1 < R ? v128.any_true(ge) : i64x2.extract_lane(ge, 0) != 0) return true;
  }
  return false;
}

// Copies the mask at `src` into the claim's mask (clearing bits at or beyond typeCount) and says
// whether the headroom must be recomputed: only when a row was added, or a removed row attained
// the headroom in some resource. Pods usually just drop a few small rows, or none.
function storeMaskNeedsHeadroom(claim: i32, src: usize): bool {
  const dst = cmaskP + ((<usize>claim * W) << 2);
  const h = headP + ((<usize>claim * RP) << 3);
  let rescan = false;
  for (let w = 0; w < W; w++) {
    let m = load<u32>(src + (<usize>w << 2));
    if (w == W - 1) m &= lastWordMask;
    const at = dst + (<usize>w << 2);
    const old = load<u32>(at);
    if (old == m) continue;
    store<u32>(at, m);
    if (rescan) continue;
    if (m & ~old) {
      rescan = true;
      continue;
    }
    let removed = old & ~m;
    while (removed) {
      if (rowAttains((w << 5) + <i32>ctz(removed), h)) {
        rescan = true;
        break;
      }
      removed &= removed - 1;
    }
  }
  return rescan;
}

// ---- buckets ------------------------------------------------------------------------------------

// dst = max(dst, headroom - requests of `claim`)
// @ts-ignore: decorator
@inline function maxInSlack(dst: usize, claim: i32): void {
  const base = (<usize>claim * RP) << 3;
  const c = creqP + base;
  const h = headP + base;
  for (let k = 0; k < RP; k += 2) {
    const off = <usize>k << 3;
    const slack = f64x2.sub(v128.load(h + off), v128.load(c + off));
    v128.store(dst + off, f64x2.max(v128.load(dst + off), slack));
  }
}

// @ts-ignore: decorator
@inline function wordBoundPtr(p: i32, w: i32): usize {
  return wmaxP + ((<usize>(p * cWords + w) * RP) << 3);
}

// Is `headroom - requests` of `claim` equal to the bound in some resource?
// @ts-ignore: decorator
@inline function attainsBound(claim: i32, bound: usize): bool {
  const base = (<usize>claim * RP) << 3;
  const c = creqP + base;
  const h = headP + base;
  for (let k = 0; k < RP; k += 2) {
    const off = <usize>k << 3;
    const slack = f64x2.sub(v128.load(h + off), v128.load(c + off));
    const ge = f64x2.ge(slack, v128.load(bound + off));
    // with an odd resource count the last pair's second lane is padding: ignore it
    if (k + 1 < R ? v128.any_true(ge) : i64x2.extract_lane(ge, 0) != 0) return true;
  }
  return false;
}

function bucketAdd(claim: i32): void {
  const p = load<i32>(podsP + (<usize>claim << 2));
  if (p >= pCap) {
    let cap = pCap;
    while (cap <= p) cap <<= 1;
    growBuckets(cap);
  }
  if (p > pTop) pTop = p;
  const w = claim >>> 5;
  const word = bbitsP + ((<usize>p * cWords + w) << 2);
  store<u32>(word, load<u32>(word) | (<u32>1 << (claim & 31)));
  const sum = bsumP + ((<usize>p * sWords + (w >>> 5)) << 2);
  store<u32>(sum, load<u32>(sum) | (<u32>1 << (w & 31)));
  const cnt = bcountP + (<usize>p << 2);
  store<i32>(cnt, load<i32>(cnt) + 1);
  maxInSlack(wordBoundPtr(p, w), claim);
  // the bucket bound only ever loosens here; findClaim tightens it on full scans
  maxInSlack(bmaxP + ((<usize>p * RP) << 3), claim);
}

function bucketRemove(claim: i32): void {
  const p = load<i32>(podsP + (<usize>claim << 2));
  const w = claim >>> 5;
  const word = bbitsP + ((<usize>p * cWords + w) << 2);
  let bits = load<u32>(word) & ~(<u32>1 << (claim & 31));
  store<u32>(word, bits);
  if (!bits) {
    const sum = bsumP + ((<usize>p * sWords + (w >>> 5)) << 2);
    store<u32>(sum, load<u32>(sum) & ~(<u32>1 << (w & 31)));
  }
  // word bounds stay exact: if the claim set the bound in some resource, recompute it over the
  // (at most 31) remaining members; otherwise the others already attain it
  const wb = wordBoundPtr(p, w);
  if (attainsBound(claim, wb)) {
    fillF64(wb, RP, -Infinity);
    while (bits) {
      maxInSlack(wb, (w << 5) + <i32>ctz(bits));
      bits &= bits - 1;
    }
  }
  const cnt = bcountP + (<usize>p << 2);
  const left = load<i32>(cnt) - 1;
  store<i32>(cnt, left);
  if (left == 0) fillF64(bmaxP + ((<usize>p * RP) << 3), RP, -Infinity);
}

// ---- host API: operations -------------------------------------------------------------------------

/** Rows of the scratch mask that fit the scratch requests, into the out region; returns the count. */
export function fitTypes(): i32 {
  return fitRows(reqP, maskP, 0, outP);
}

/** Opens a claim with the scratch requests and mask, zero pods; returns its id. */
export function openClaim(): i32 {
  if (cCount == cCap) growClaims(cCap << 1);
  const id = cCount++;
  memory.copy(creqP + ((<usize>id * RP) << 3), reqP, <usize>RP << 3);
  storeMask(cmaskP + ((<usize>id * W) << 2), maskP);
  store<i32>(podsP + (<usize>id << 2), 0);
  store<u8>(openP + <usize>id, 1);
  computeHeadroom(id);
  bucketAdd(id);
  return id;
}

// Is there a row in claimMask & scratch mask that covers claimRequests + scratch requests?
function claimHasFit(claim: i32): bool {
  vecAdd(sumP, creqP + ((<usize>claim * RP) << 3), reqP);
  return fitRows(sumP, cmaskP + ((<usize>claim * W) << 2), maskP, fitP) > 0;
}

/**
 * The open claim with the smallest (podCount, id) above `after`'s key that fits the scratch
 * requests within the scratch mask, or -1. Walks buckets in pod-count order and, inside a
 * bucket, claim ids in ascending order; a bucket whose bound rejects the pod is skipped in O(R).
 */
export function findClaim(after: i32): i32 {
  let p = 0;
  let startId = 0;
  if (after >= 0) {
    p = load<i32>(podsP + (<usize>after << 2));
    startId = after + 1;
  }
  for (; p <= pTop; p++, startId = 0) {
    if (load<i32>(bcountP + (<usize>p << 2)) == 0) continue;
    const bm = bmaxP + ((<usize>p * RP) << 3);
    if (!vecFits(reqP, bm)) continue;
    const full = startId == 0;
    // a full scan that finds nothing recomputes the bound exactly from the word bounds
    if (full) fillF64(boundP, RP, -Infinity);
    const bits0 = bbitsP + ((<usize>p * cWords) << 2);
    const sum0 = bsumP + ((<usize>p * sWords) << 2);
    const firstWord = startId >>> 5;
    // walk only words with members, through the summary bitset
    for (let sw = firstWord >>> 5; sw < sWords; sw++) {
      let words = load<u32>(sum0 + (<usize>sw << 2));
      if (sw == firstWord >>> 5) words &= <u32>0xffffffff << (firstWord & 31);
      while (words) {
        const w = (sw << 5) + <i32>ctz(words);
        words &= words - 1;
        let bits = load<u32>(bits0 + (<usize>w << 2));
        if (w == firstWord) bits &= <u32>0xffffffff << (startId & 31);
        if (!bits) continue;
        const wb = wordBoundPtr(p, w);
        if (full) {
          for (let k = 0; k < RP; k += 2) {
            const off = <usize>k << 3;
            v128.store(boundP + off, f64x2.max(v128.load(boundP + off), v128.load(wb + off)));
          }
        }
        // skip 32 claims at once when none of them has the room
        if (!vecFits(reqP, wb)) continue;
        while (bits) {
          const c = (w << 5) + <i32>ctz(bits);
          bits &= bits - 1;
          if (headroomFits(c, reqP) && claimHasFit(c)) return c;
        }
      }
    }
    if (full) memory.copy(bm, boundP, <usize>RP << 3);
  }
  return -1;
}

/** claimMask & scratch mask & fit(claimRequests + scratch requests), into out; returns the count. */
export function claimFit(claim: i32): i32 {
  vecAdd(sumP, creqP + ((<usize>claim * RP) << 3), reqP);
  return fitRows(sumP, cmaskP + ((<usize>claim * W) << 2), maskP, outP);
}

/** Adds a pod: requests += scratch requests, podCount += 1, mask = scratch mask. */
export function commit(claim: i32): void {
  commitWith(claim, maskP);
}

/** claimFit, then commit with its result when any row remains; returns the count. */
export function claimFitCommit(claim: i32): i32 {
  const n = claimFit(claim);
  if (n > 0) commitWith(claim, outP);
  return n;
}

/**
 * fitTypes, then (when any row fits) a new claim holding the pod: scratch requests, one pod,
 * the fitting rows. Returns its id, or -1 with nothing opened.
 */
export function openWithPod(): i32 {
  if (fitTypes() == 0) return -1;
  if (cCount == cCap) growClaims(cCap << 1);
  const id = cCount++;
  memory.copy(creqP + ((<usize>id * RP) << 3), reqP, <usize>RP << 3);
  storeMask(cmaskP + ((<usize>id * W) << 2), outP);
  store<i32>(podsP + (<usize>id << 2), 1);
  store<u8>(openP + <usize>id, 1);
  computeHeadroom(id);
  bucketAdd(id);
  return id;
}

// Adds a pod with the scratch requests and the mask at `src`.
function commitWith(claim: i32, src: usize): void {
  const isOpen = load<u8>(openP + <usize>claim) != 0;
  if (isOpen) bucketRemove(claim);
  const c = creqP + ((<usize>claim * RP) << 3);
  vecAdd(c, c, reqP);
  const pp = podsP + (<usize>claim << 2);
  store<i32>(pp, load<i32>(pp) + 1);
  if (storeMaskNeedsHeadroom(claim, src)) computeHeadroom(claim);
  if (isOpen) bucketAdd(claim);
}

/** Removes a claim from findClaim's candidates. */
export function close(claim: i32): void {
  const o = openP + <usize>claim;
  if (load<u8>(o) == 0) return;
  bucketRemove(claim);
  store<u8>(o, 0);
}

// ---- row ordering (orderRows) -------------------------------------------------------------------

let sortCap: i32 = 0; // rows the sort regions hold
let sortWidthCap: i32 = 0; // key lanes the key region holds per row at sortCap rows
let sortKeysP: usize = 0; // rows*width f64: keys, row-major
let sortOrderP: usize = 0; // rows i32: the order (output)
let sortTmpP: usize = 0; // rows i32: merge buffer
let sortN: i32 = 0;
let sortW: i32 = 0;

/**
 * Lays out `count` rows of `width` key lanes for `sortRows` (reusing the last regions when they
 * are large enough); returns where the host writes the keys.
 */
export function sortAlloc(count: i32, width: i32): usize {
  if (count > sortCap || <i64>count * width > <i64>sortCap * sortWidthCap) {
    const cap = max(count, 64);
    sortKeysP = arenaAlloc((<usize>cap * width) << 3);
    sortOrderP = arenaAlloc(<usize>cap << 2);
    sortTmpP = arenaAlloc(<usize>cap << 2);
    sortCap = cap;
    sortWidthCap = width;
  }
  sortN = count;
  sortW = width;
  return sortKeysP;
}

export function sortOrderPtr(): usize {
  return sortOrderP;
}

// Is row a's key before row b's (lexicographic over the lanes; the lower index on equal keys)?
// @ts-ignore: decorator
@inline function rowBefore(a: i32, b: i32): bool {
  const pa = sortKeysP + ((<usize>a * sortW) << 3);
  const pb = sortKeysP + ((<usize>b * sortW) << 3);
  for (let k = 0; k < sortW; k++) {
    const x = load<f64>(pa + (<usize>k << 3));
    const y = load<f64>(pb + (<usize>k << 3));
    if (x < y) return true;
    if (x > y) return false;
  }
  return a < b;
}

/** Writes into the order region the rows sorted by key (stable: ties keep row order). */
export function sortRows(): void {
  const n = sortN;
  let src = sortOrderP;
  let dst = sortTmpP;
  // insertion-sorted runs of 16, then bottom-up merges
  for (let lo = 0; lo < n; lo += 16) {
    const hi = min(lo + 16, n);
    for (let i = lo; i < hi; i++) {
      let j = i;
      while (j > lo && rowBefore(i, load<i32>(src + (<usize>(j - 1) << 2)))) {
        store<i32>(src + (<usize>j << 2), load<i32>(src + (<usize>(j - 1) << 2)));
        j--;
      }
      store<i32>(src + (<usize>j << 2), i);
    }
  }
  for (let run = 16; run < n; run <<= 1) {
    for (let lo = 0; lo < n; lo += run << 1) {
      const mid = min(lo + run, n);
      const hi = min(lo + (run << 1), n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const a = load<i32>(src + (<usize>i << 2));
        const b = load<i32>(src + (<usize>j << 2));
        if (rowBefore(b, a)) {
          store<i32>(dst + (<usize>k << 2), b);
          j++;
        } else {
          store<i32>(dst + (<usize>k << 2), a);
          i++;
        }
        k++;
      }
      for (; i < mid; i++, k++) store<i32>(dst + (<usize>k << 2), load<i32>(src + (<usize>i << 2)));
      for (; j < hi; j++, k++) store<i32>(dst + (<usize>k << 2), load<i32>(src + (<usize>j << 2)));
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src != sortOrderP) memory.copy(sortOrderP, src, <usize>n << 2);
}
