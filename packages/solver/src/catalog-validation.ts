import type { SolverCatalog } from './types.js';

/**
 * Most rows a catalog may hold. The WASM core addresses linear memory with 32-bit offsets, and
 * a million rows (instance types × NodePool templates × daemon groups) is far beyond any real
 * batch, so anything larger is treated as a malformed catalog rather than risking overflow.
 */
export const MAX_CATALOG_ROWS = 1 << 20;

/** Shape of a validated catalog: rows, columns and the mask length they imply. */
export interface CatalogShape {
  readonly typeCount: number;
  readonly resourceCount: number;
  /** `ceil(typeCount / 32)`. */
  readonly maskWords: number;
}

/**
 * Checks a catalog before either solver loads it, so both reject exactly the same input.
 *
 * Rules: `resourceNames` is an array of distinct non-empty strings; `typeCount` is an integer in
 * `[0, MAX_CATALOG_ROWS]`; `allocatable` is a `Float64Array` of `typeCount × resourceNames.length`
 * values, each a non-negative safe integer (millicores, bytes or counts; never fractions).
 *
 * @throws RangeError naming the field and the rule that failed.
 */
export function validateCatalog(catalog: SolverCatalog): CatalogShape {
  if (typeof catalog !== 'object' || catalog === null) {
    throw new RangeError(
      'solver catalog: expected an object with resourceNames, typeCount and allocatable',
    );
  }
  const { resourceNames, typeCount, allocatable } = catalog;
  if (!Array.isArray(resourceNames)) {
    throw new RangeError('solver catalog: resourceNames must be an array of resource names');
  }
  const seen = new Set<string>();
  resourceNames.forEach((name: unknown, i) => {
    if (typeof name !== 'string' || name.length === 0) {
      throw new RangeError(`solver catalog: resourceNames[${i}] must be a non-empty string`);
    }
    if (seen.has(name)) {
      throw new RangeError(`solver catalog: resourceNames[${i}] repeats resource "${name}"`);
    }
    seen.add(name);
  });
  if (!Number.isInteger(typeCount) || typeCount < 0 || typeCount > MAX_CATALOG_ROWS) {
    throw new RangeError(
      `solver catalog: typeCount must be an integer from 0 to ${MAX_CATALOG_ROWS}, got ${String(typeCount)}`,
    );
  }
  if (!(allocatable instanceof Float64Array)) {
    throw new RangeError('solver catalog: allocatable must be a Float64Array');
  }
  const resourceCount = resourceNames.length;
  if (allocatable.length !== typeCount * resourceCount) {
    throw new RangeError(
      `solver catalog: allocatable must hold typeCount × resources = ${typeCount} × ${resourceCount} = ` +
        `${typeCount * resourceCount} values, got ${allocatable.length}`,
    );
  }
  for (let i = 0; i < allocatable.length; i++) {
    const v = allocatable[i]!;
    if (!Number.isSafeInteger(v) || v < 0) {
      const row = Math.floor(i / resourceCount);
      const name = resourceNames[i % resourceCount]!;
      throw new RangeError(
        `solver catalog: allocatable[${i}] (row ${row}, resource "${name}") must be a non-negative ` +
          `integer no larger than 2^53 - 1, got ${v}`,
      );
    }
  }
  return { typeCount, resourceCount, maskWords: (typeCount + 31) >>> 5 };
}
