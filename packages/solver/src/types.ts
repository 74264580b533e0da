/**
 * The solver contract shared by the WebAssembly core and its TypeScript twin.
 *
 * The solver owns the numeric hot path of a scheduling batch: resource fit of pods against
 * instance types and node claims, and the filtering of each node claim's instance-type options
 * as pods are added. Everything else (requirements, taints, topology) stays in the scheduler.
 *
 * Units: every resource is a non-negative integer held in a float64 (exact up to 2^53):
 * `cpu` in millicores, `memory` and `ephemeral-storage` in bytes, `pods` and extended
 * resources as counts. A "type" here is one row of the catalog: an (instance type, NodePool
 * template, daemon group) combination chosen by the scheduler, whose `allocatable` already has
 * that row's daemonset overhead subtracted.
 *
 * Masks are bitsets over catalog rows: `Uint32Array` of `maskWords` words, bit `t % 32` of word
 * `t >> 5` set means row `t` is included. Bits at or beyond `typeCount` are always zero.
 *
 * Data crosses the WASM boundary once per batch (`load`) and then once per call as small typed
 * arrays (one pod's requests and a mask), never per pod per node.
 */
export interface SolverCatalog {
  /** Resource names, in column order, e.g. `['cpu', 'memory', 'pods', 'ephemeral-storage']`. */
  readonly resourceNames: readonly string[];
  /** Number of rows (types). */
  readonly typeCount: number;
  /** Row-major `typeCount × resourceNames.length` allocatable amounts, in the units above. */
  readonly allocatable: Float64Array;
}

/** Which implementation runs the hot path. */
export type SolverKind = 'wasm' | 'ts';

export interface Solver {
  readonly kind: SolverKind;
  /** Rows of the loaded catalog (0 before `load`). */
  readonly typeCount: number;
  /** Columns of the loaded catalog. */
  readonly resourceCount: number;
  /** `ceil(typeCount / 32)`: length of every mask this solver reads or writes. */
  readonly maskWords: number;

  /** Loads a batch's catalog and forgets every claim. Throws RangeError on a malformed catalog. */
  load(catalog: SolverCatalog): void;

  /**
   * Writes into `out` the rows of `inMask` whose allocatable covers `requests` in every
   * resource (`requests[r] <= allocatable[t][r]`), and returns how many there are.
   */
  fitTypes(requests: Float64Array, inMask: Uint32Array, out: Uint32Array): number;

  /**
   * Opens a claim (an in-flight node claim or an existing node modelled as a claim) with the
   * given starting requests and option mask, zero pods. Returns its id (0, 1, 2, ... in order).
   */
  openClaim(requests: Float64Array, mask: Uint32Array): number;

  /**
   * Finds the next claim that could take a pod: among open claims whose key (podCount, id) is
   * greater than the key of `after` (or all claims when `after` is -1), the one with the
   * smallest key such that some row `t` in `claimMask & podMask` satisfies
   * `claimRequests[r] + requests[r] <= allocatable[t][r]` for every r. Returns -1 if none.
   * This is upstream's "in-flight node claims, fewest pods first, lowest index wins" order.
   */
  findClaim(requests: Float64Array, podMask: Uint32Array, after: number): number;

  /**
   * The rows that would remain on `claim` if a pod with `requests` were added:
   * `claimMask & podMask & fit(claimRequests + requests)`, written into `out`; returns the count.
   */
  claimFit(claim: number, requests: Float64Array, podMask: Uint32Array, out: Uint32Array): number;

  /**
   * Adds a pod to `claim`: requests += `requests`, podCount += 1, and the option mask becomes
   * `mask` (normally what `claimFit` returned, possibly narrowed further by the scheduler).
   */
  commit(claim: number, requests: Float64Array, mask: Uint32Array): void;

  /**
   * `claimFit` and, when at least one row remains, `commit` of the pod with exactly those rows,
   * in one call (one crossing into the WASM core instead of two). Writes the rows into `out` and
   * returns their count; 0 means the claim was left unchanged.
   */
  claimFitCommit(
    claim: number,
    requests: Float64Array,
    podMask: Uint32Array,
    out: Uint32Array,
  ): number;

  /**
   * `fitTypes` and, when at least one row fits, a new claim holding the pod: the same state as
   * `openClaim` with zero requests and the fitting rows followed by `commit` of `requests` with
   * those rows (requests = `requests`, one pod). Writes the rows into `out`; returns the new
   * claim's id, or -1 (nothing opened) when no row fits.
   */
  openWithPod(requests: Float64Array, inMask: Uint32Array, out: Uint32Array): number;

  /**
   * Sorts rows of keys: `keys` is row-major, `width` float64 lanes per row
   * (`keys.length / width` rows); writes into `order` the row indices ascending by their lanes
   * compared left to right, equal keys in row order (a stable sort). Independent of the loaded
   * catalog. The scheduler orders its queue with it.
   * @throws RangeError when `width` is not a positive integer, `keys.length` is not a multiple
   *   of it, `order.length` is not the row count, or a key is NaN.
   */
  orderRows(keys: Float64Array, width: number, order: Int32Array): void;

  /** Stops `claim` from being returned by `findClaim` (e.g. an existing node being deleted). */
  close(claim: number): void;

  /** Number of claims opened since `load`. */
  readonly claimCount: number;
  /** A copy of the claim's summed requests. */
  claimRequests(claim: number): Float64Array;
  /** A copy of the claim's option mask. */
  claimMask(claim: number): Uint32Array;
  /** Pods committed to the claim. */
  claimPods(claim: number): number;
}
