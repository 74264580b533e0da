// Helpers for the row bitsets every solver call reads and writes (see types.ts for the layout).

/** Words in a mask over `typeCount` rows: `ceil(typeCount / 32)`. */
export function maskWordsFor(typeCount: number): number {
  return (typeCount + 31) >>> 5;
}

/** Valid bits of the last mask word: rows at or beyond `typeCount` must stay zero. */
export function lastWordMask(typeCount: number): number {
  const rem = typeCount & 31;
  return rem === 0 ? 0xffffffff : ((1 << rem) - 1) >>> 0;
}

/** A mask with every one of `typeCount` rows set. */
export function fullMask(typeCount: number): Uint32Array {
  const words = maskWordsFor(typeCount);
  const mask = new Uint32Array(words).fill(0xffffffff);
  if (words > 0) mask[words - 1] = lastWordMask(typeCount);
  return mask;
}

/**
 * A mask over `typeCount` rows with the given rows set.
 * @throws RangeError if a row is not an integer in `[0, typeCount)`.
 */
export function maskFromRows(typeCount: number, rows: Iterable<number>): Uint32Array {
  const mask = new Uint32Array(maskWordsFor(typeCount));
  for (const t of rows) {
    if (!Number.isInteger(t) || t < 0 || t >= typeCount) {
      throw new RangeError(`mask row must be an integer from 0 to ${typeCount - 1}, got ${t}`);
    }
    mask[t >>> 5] = (mask[t >>> 5] ?? 0) | (1 << (t & 31));
  }
  return mask;
}

/** The rows set in `mask`, ascending. */
export function rowsOfMask(mask: Uint32Array): number[] {
  const rows: number[] = [];
  for (let w = 0; w < mask.length; w++) {
    let bits = mask[w]!;
    while (bits !== 0) {
      const b = 31 - Math.clz32(bits & -bits);
      rows.push((w << 5) + b);
      bits &= bits - 1;
    }
  }
  return rows;
}

/** Number of rows set in `mask`. */
export function countRows(mask: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < mask.length; w++) n += popcount32(mask[w]!);
  return n;
}

/** Set bits in a 32-bit word. */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
