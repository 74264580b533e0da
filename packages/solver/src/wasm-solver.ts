import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  checkAfter,
  checkClaim,
  checkMask,
  checkOrderRows,
  checkRequests,
} from './argument-checks.js';
import { validateCatalog } from './catalog-validation.js';
import { fitThresholds, thresholdSlots, type SolverOptions } from './fit-index.js';
import { CORE_SORT_MAX_KEY_BYTES, sortRowsByKeys } from './row-order.js';
import type { Solver, SolverCatalog } from './types.js';
import {
  webAssembly,
  type WasmInstance,
  type WasmMemory,
  type WasmModule,
} from './webassembly-api.js';

/** Where the build puts the core; resolves from src/ (tests) and from dist/ (runtime) alike. */
export const SOLVER_WASM_URL = new URL('../build/solver.wasm', import.meta.url);

/** The exports of build/solver.wasm (assembly/index.ts); pointers are byte offsets into `memory`. */
interface CoreExports {
  readonly memory: WasmMemory;
  reset(typeCount: number, resourceCount: number): void;
  stride(): number;
  requestsPtr(): number;
  maskPtr(): number;
  outPtr(): number;
  allocatablePtr(): number;
  claimCount(): number;
  claimRequestsPtr(claim: number): number;
  claimMaskPtr(claim: number): number;
  claimPods(claim: number): number;
  indexAlloc(slots: number): number;
  indexBuild(): void;
  fitTypes(): number;
  openClaim(): number;
  findClaim(after: number): number;
  claimFit(claim: number): number;
  commit(claim: number): void;
  claimFitCommit(claim: number): number;
  openWithPod(): number;
  close(claim: number): void;
  sortAlloc(count: number, width: number): number;
  sortOrderPtr(): number;
  sortRows(): void;
}

let compiled: WasmModule | undefined;

function readCore(): Uint8Array {
  try {
    return readFileSync(fileURLToPath(SOLVER_WASM_URL));
  } catch (cause) {
    throw new Error(
      `solver: cannot read the WebAssembly core at ${fileURLToPath(SOLVER_WASM_URL)}; ` +
        'build it with `npm run build -w @karpenter-ts/solver`',
      { cause },
    );
  }
}

/**
 * The solver running in WebAssembly (assembly/index.ts compiled to build/solver.wasm).
 *
 * Each call copies one request vector (R float64) and one mask (W uint32) into fixed scratch
 * regions of linear memory through cached typed-array views, then calls the export; results
 * are copied out of a fixed output region. Views are re-created only after memory grows.
 * Argument checks run here, before the core sees anything, so bad input never half-applies.
 */
export class WasmSolver implements Solver {
  readonly kind = 'wasm' as const;
  typeCount = 0;
  resourceCount = 0;
  maskWords = 0;

  private readonly core: CoreExports;
  private f64: Float64Array;
  private u32: Uint32Array;
  private reqAt = 0; // Float64Array index of the requests scratch
  private maskAt = 0; // Uint32Array index of the mask scratch
  private outAt = 0; // Uint32Array index of the output region

  private readonly maxThresholds: number | undefined;
  private readonly coreSortMaxKeyBytes: number;

  /**
   * @throws RangeError for an out-of-range `options.maxThresholds` or a negative or NaN
   *   `options.coreSortMaxKeyBytes`.
   */
  constructor(instance: WasmInstance, options: SolverOptions = {}) {
    this.maxThresholds = options.maxThresholds;
    thresholdSlots(1, 1, options.maxThresholds);
    const sortMax = options.coreSortMaxKeyBytes ?? CORE_SORT_MAX_KEY_BYTES;
    if (typeof sortMax !== 'number' || !(sortMax >= 0)) {
      throw new RangeError(`coreSortMaxKeyBytes must be a number >= 0, got ${String(sortMax)}`);
    }
    this.coreSortMaxKeyBytes = sortMax;
    this.core = instance.exports as unknown as CoreExports;
    this.f64 = new Float64Array(this.core.memory.buffer);
    this.u32 = new Uint32Array(this.core.memory.buffer);
    this.reset(0, 0);
  }

  /** Mirrors the core's claim count, so argument checks need no call into the core. */
  private claims = 0;

  get claimCount(): number {
    return this.claims;
  }

  load(catalog: SolverCatalog): void {
    const { typeCount, resourceCount } = validateCatalog(catalog);
    this.reset(typeCount, resourceCount);
    const stride = this.core.stride();
    const at = this.core.allocatablePtr() >>> 3;
    const f64 = this.views();
    const src = catalog.allocatable;
    for (let t = 0; t < typeCount; t++) {
      f64.set(src.subarray(t * resourceCount, (t + 1) * resourceCount), at + t * stride);
    }
    const slots = thresholdSlots(resourceCount, this.maskWords, this.maxThresholds);
    const thresholds = fitThresholds(src, typeCount, resourceCount, resourceCount, slots);
    const thrAt = this.core.indexAlloc(slots) >>> 3;
    this.views().set(thresholds, thrAt);
    this.core.indexBuild();
  }

  fitTypes(requests: Float64Array, inMask: Uint32Array, out: Uint32Array): number {
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(inMask, this.maskWords, 'inMask');
    checkMask(out, this.maskWords, 'out');
    this.put(requests, inMask);
    const n = this.core.fitTypes();
    this.takeOut(out);
    return n;
  }

  openClaim(requests: Float64Array, mask: Uint32Array): number {
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(mask, this.maskWords, 'mask');
    this.put(requests, mask);
    const id = this.core.openClaim();
    this.claims = id + 1;
    return id;
  }

  findClaim(requests: Float64Array, podMask: Uint32Array, after: number): number {
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(podMask, this.maskWords, 'podMask');
    checkAfter(after, this.claims);
    this.put(requests, podMask);
    return this.core.findClaim(after);
  }

  claimFit(claim: number, requests: Float64Array, podMask: Uint32Array, out: Uint32Array): number {
    checkClaim(claim, this.claims);
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(podMask, this.maskWords, 'podMask');
    checkMask(out, this.maskWords, 'out');
    this.put(requests, podMask);
    const n = this.core.claimFit(claim);
    this.takeOut(out);
    return n;
  }

  commit(claim: number, requests: Float64Array, mask: Uint32Array): void {
    checkClaim(claim, this.claims);
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(mask, this.maskWords, 'mask');
    this.put(requests, mask);
    this.core.commit(claim);
  }

  claimFitCommit(
    claim: number,
    requests: Float64Array,
    podMask: Uint32Array,
    out: Uint32Array,
  ): number {
    checkClaim(claim, this.claims);
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(podMask, this.maskWords, 'podMask');
    checkMask(out, this.maskWords, 'out');
    this.put(requests, podMask);
    const n = this.core.claimFitCommit(claim);
    this.takeOut(out);
    return n;
  }

  openWithPod(requests: Float64Array, inMask: Uint32Array, out: Uint32Array): number {
    checkRequests(requests, this.resourceCount, 'requests');
    checkMask(inMask, this.maskWords, 'inMask');
    checkMask(out, this.maskWords, 'out');
    this.put(requests, inMask);
    const id = this.core.openWithPod();
    if (id >= 0) this.claims = id + 1;
    this.takeOut(out);
    return id;
  }

  /**
   * Sorts in the core, or (a key block over `coreSortMaxKeyBytes`) in TypeScript with the same
   * algorithm: copying a large block would grow linear memory for no faster sort (see
   * row-order.ts).
   */
  orderRows(keys: Float64Array, width: number, order: Int32Array): void {
    const rows = checkOrderRows(keys, width, order);
    if (keys.byteLength > this.coreSortMaxKeyBytes) {
      sortRowsByKeys(keys, width, order);
      return;
    }
    const at = this.core.sortAlloc(rows, width) >>> 3;
    this.views().set(keys, at);
    this.core.sortRows();
    const from = this.core.sortOrderPtr() >>> 2;
    order.set(new Int32Array(this.core.memory.buffer, from << 2, rows));
  }

  close(claim: number): void {
    checkClaim(claim, this.claims);
    this.core.close(claim);
  }

  claimRequests(claim: number): Float64Array {
    checkClaim(claim, this.claims);
    const at = this.core.claimRequestsPtr(claim) >>> 3;
    return this.views().slice(at, at + this.resourceCount);
  }

  claimMask(claim: number): Uint32Array {
    checkClaim(claim, this.claims);
    this.views();
    const at = this.core.claimMaskPtr(claim) >>> 2;
    return this.u32.slice(at, at + this.maskWords);
  }

  claimPods(claim: number): number {
    checkClaim(claim, this.claims);
    return this.core.claimPods(claim);
  }

  /** Bytes of linear memory the core holds now (memory grows and never shrinks). */
  get memoryBytes(): number {
    return this.core.memory.buffer.byteLength;
  }

  private reset(typeCount: number, resourceCount: number): void {
    this.core.reset(typeCount, resourceCount);
    this.claims = 0;
    this.typeCount = typeCount;
    this.resourceCount = resourceCount;
    this.maskWords = (typeCount + 31) >>> 5;
    this.reqAt = this.core.requestsPtr() >>> 3;
    this.maskAt = this.core.maskPtr() >>> 2;
    this.outAt = this.core.outPtr() >>> 2;
  }

  // Current views of linear memory. Growing memory detaches the old ArrayBuffer, which makes
  // the old views zero-length: a cheaper test than reading `memory.buffer` on every call.
  private views(): Float64Array {
    if (this.f64.length === 0) {
      this.f64 = new Float64Array(this.core.memory.buffer);
      this.u32 = new Uint32Array(this.core.memory.buffer);
    }
    return this.f64;
  }

  // Plain loops: for a handful of values they beat TypedArray#set and allocate nothing.
  private put(requests: Float64Array, mask: Uint32Array): void {
    const f64 = this.views();
    const u32 = this.u32;
    const reqAt = this.reqAt;
    const maskAt = this.maskAt;
    for (let r = 0; r < requests.length; r++) f64[reqAt + r] = requests[r]!;
    for (let w = 0; w < mask.length; w++) u32[maskAt + w] = mask[w]!;
  }

  private takeOut(out: Uint32Array): void {
    this.views();
    const u32 = this.u32;
    const outAt = this.outAt;
    for (let w = 0; w < out.length; w++) out[w] = u32[outAt + w]!;
  }
}

/**
 * A WASM solver, compiling build/solver.wasm synchronously on first use (a few KB, so the
 * synchronous compile is cheap) and instantiating a fresh memory for each solver.
 * @throws Error if the .wasm has not been built.
 */
export function createWasmSolverSync(options: SolverOptions = {}): WasmSolver {
  compiled ??= new webAssembly.Module(readCore());
  return new WasmSolver(new webAssembly.Instance(compiled, {}), options);
}

/**
 * A WASM solver, compiled and instantiated asynchronously (preferred off the hot path).
 * @throws Error if the .wasm has not been built.
 */
export async function createWasmSolver(options: SolverOptions = {}): Promise<WasmSolver> {
  compiled ??= await webAssembly.compile(readCore());
  return new WasmSolver(await webAssembly.instantiate(compiled, {}), options);
}
