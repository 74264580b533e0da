// Per-call argument checks shared by both solvers, so a bad call fails the same way in each
// and never leaves a half-applied change. Each is O(resources) or O(1): cheap next to the work.

/**
 * Requests must be a Float64Array with one non-negative safe integer per catalog resource.
 * @throws RangeError naming the argument and the rule.
 */
export function checkRequests(requests: Float64Array, resourceCount: number, what: string): void {
  if (!(requests instanceof Float64Array) || requests.length !== resourceCount) {
    throw new RangeError(`solver: ${what} must be a Float64Array of ${resourceCount} resources`);
  }
  for (let r = 0; r < resourceCount; r++) {
    const v = requests[r]!;
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`solver: ${what}[${r}] must be a non-negative integer, got ${v}`);
    }
  }
}

/**
 * Masks (input and output) must be Uint32Arrays of exactly `maskWords` words.
 * @throws RangeError naming the argument.
 */
export function checkMask(mask: Uint32Array, maskWords: number, what: string): void {
  if (!(mask instanceof Uint32Array) || mask.length !== maskWords) {
    throw new RangeError(`solver: ${what} must be a Uint32Array of ${maskWords} words`);
  }
}

/**
 * A claim id must be one `openClaim` returned since the last `load`.
 * @throws RangeError with the valid range.
 */
export function checkClaim(claim: number, claimCount: number, what = 'claim'): void {
  if (!Number.isInteger(claim) || claim < 0 || claim >= claimCount) {
    throw new RangeError(
      `solver: ${what} must be a claim id from 0 to ${claimCount - 1}, got ${String(claim)}`,
    );
  }
}

/**
 * The `after` cursor of `findClaim` is -1 (from the start) or a claim id.
 * @throws RangeError otherwise.
 */
export function checkAfter(after: number, claimCount: number): void {
  if (after !== -1) checkClaim(after, claimCount, 'after (-1 or a claim id)');
}

/**
 * `orderRows` arguments: a positive integer width dividing `keys.length`, an Int32Array `order`
 * of one entry per row, and no NaN key (NaN has no order). Returns the row count.
 * @throws RangeError naming the argument and the rule.
 */
export function checkOrderRows(keys: Float64Array, width: number, order: Int32Array): number {
  if (!(keys instanceof Float64Array)) throw new RangeError('solver: keys must be a Float64Array');
  if (!Number.isSafeInteger(width) || width < 1 || keys.length % width !== 0) {
    throw new RangeError(
      `solver: width must be a positive integer dividing keys.length (${keys.length}), got ${width}`,
    );
  }
  const rows = keys.length / width;
  if (!(order instanceof Int32Array) || order.length !== rows) {
    throw new RangeError(`solver: order must be an Int32Array of ${rows} rows`);
  }
  for (let i = 0; i < keys.length; i++) {
    if (Number.isNaN(keys[i])) throw new RangeError(`solver: keys[${i}] is NaN`);
  }
  return rows;
}
