// The stable row sort behind `Solver.orderRows`, in TypeScript: the TS twin always uses it, the
// WASM solver for key blocks too large to be worth copying into linear memory (see
// `CORE_SORT_MAX_KEY_BYTES`). The WASM core (assembly/index.ts `sortRows`) runs the same
// algorithm, so every path gives the same order.

/**
 * Largest key block (bytes) the WASM solver copies into linear memory to sort in the core. Above
 * it (about 50,000 rows of 10 lanes) the core sorts no faster than this code (both ~90 ms for
 * 195,000 rows), while the copy grows the instance's memory, which V8 counts as external memory
 * and answers with a full garbage collection of the whole heap (about 1.4 s of a 195,000-pod
 * scheduling batch; see benchmarks/README.md).
 */
export const CORE_SORT_MAX_KEY_BYTES = 4 << 20;

/**
 * Writes into `order` the indices of the rows of `keys` (`order.length` rows of `width` float64
 * lanes, row-major) sorted by their lanes left to right, ties by index (a stable sort):
 * insertion-sorted runs of 16, then bottom-up merges. Arguments are assumed checked
 * (`checkOrderRows`); allocates one Int32Array of the row count.
 */
export function sortRowsByKeys(keys: Float64Array, width: number, order: Int32Array): void {
  const n = order.length;
  const before = (a: number, b: number): boolean => {
    for (let k = 0; k < width; k++) {
      const x = keys[a * width + k]!;
      const y = keys[b * width + k]!;
      if (x < y) return true;
      if (x > y) return false;
    }
    return a < b;
  };
  let src: Int32Array = order;
  let dst: Int32Array = new Int32Array(n);
  for (let lo = 0; lo < n; lo += 16) {
    const hi = Math.min(lo + 16, n);
    for (let i = lo; i < hi; i++) {
      let j = i;
      while (j > lo && before(i, src[j - 1]!)) {
        src[j] = src[j - 1]!;
        j--;
      }
      src[j] = i;
    }
  }
  for (let run = 16; run < n; run *= 2) {
    for (let lo = 0; lo < n; lo += run * 2) {
      const mid = Math.min(lo + run, n);
      const hi = Math.min(lo + run * 2, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const a = src[i]!;
        const b = src[j]!;
        if (before(b, a)) {
          dst[k++] = b;
          j++;
        } else {
          dst[k++] = a;
          i++;
        }
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src !== order) order.set(src);
}
