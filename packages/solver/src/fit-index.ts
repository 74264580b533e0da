// The fit index both cores build on `load` (see README "Fit index"): per resource, a few
// allocatable thresholds and, for each, the mask of rows at or above it. A fit check then costs
// a binary search and a few word ANDs per resource, plus an exact check of the rows whose
// allocatable falls between two thresholds around the request (few, and none when a resource
// has no more distinct values than thresholds).

/** Thresholds per resource at most; 64 keeps the bands of a 400-row catalog to a few rows. */
export const MAX_FIT_THRESHOLDS = 64;
/** Mask words the index may hold in all (16 MiB); huge catalogs get fewer thresholds. */
const INDEX_BUDGET_WORDS = 1 << 22;

/** Tuning knobs of a solver; tests lower `maxThresholds` to exercise the band checks. */
export interface SolverOptions {
  /** Thresholds per resource in the fit index, from 1 to 64 (default 64). */
  readonly maxThresholds?: number;
  /**
   * WASM solver only: the largest `orderRows` key block, in bytes, sorted inside the core;
   * larger blocks are sorted in TypeScript with the same algorithm (default
   * `CORE_SORT_MAX_KEY_BYTES`, 4 MiB; a number >= 0, Infinity allowed). Tests pick a path with it.
   */
  readonly coreSortMaxKeyBytes?: number;
}

/**
 * Threshold slots per resource for a catalog: thresholds plus one `+Infinity` slot whose mask
 * is empty, so `slot + 1` always exists.
 * @throws RangeError when `maxThresholds` is not an integer from 1 to 64.
 */
export function thresholdSlots(
  resourceCount: number,
  maskWords: number,
  maxThresholds = MAX_FIT_THRESHOLDS,
): number {
  if (!Number.isInteger(maxThresholds) || maxThresholds < 1 || maxThresholds > MAX_FIT_THRESHOLDS) {
    throw new RangeError(
      `maxThresholds must be an integer from 1 to ${MAX_FIT_THRESHOLDS}, got ${maxThresholds}`,
    );
  }
  const perThreshold = Math.max(1, resourceCount * maskWords);
  const affordable = Math.max(1, Math.floor(INDEX_BUDGET_WORDS / perThreshold) - 1);
  return Math.min(maxThresholds, affordable) + 1;
}

/**
 * The thresholds, `resourceCount × slots` (row-major by resource): for resource r, `q` of its
 * distinct allocatable values spread evenly from the smallest (`q = min(distinct, slots - 1)`),
 * ascending, then `+Infinity` up to `slots`. `allocatable` is row-major `typeCount × stride`.
 */
export function fitThresholds(
  allocatable: Float64Array,
  typeCount: number,
  resourceCount: number,
  stride: number,
  slots: number,
): Float64Array<ArrayBuffer> {
  const out = new Float64Array(resourceCount * slots).fill(Infinity);
  const column = new Float64Array(typeCount);
  for (let r = 0; r < resourceCount; r++) {
    for (let t = 0; t < typeCount; t++) column[t] = allocatable[t * stride + r]!;
    column.sort();
    let distinct = 0;
    for (let t = 0; t < typeCount; t++) {
      if (t === 0 || column[t] !== column[distinct - 1]) column[distinct++] = column[t]!;
    }
    const q = Math.min(distinct, slots - 1);
    for (let i = 0; i < q; i++) out[r * slots + i] = column[Math.floor((i * distinct) / q)]!;
  }
  return out;
}
