// Builders that keep solver tests readable: catalogs from rows, requests from numbers, and
// masks from row lists.
import {
  createSolver,
  maskFromRows,
  type Solver,
  type SolverCatalog,
  type SolverKind,
} from '../src/index.js';

export const KINDS: readonly SolverKind[] = ['wasm', 'ts'];

export const GiB = 1024 ** 3;

/** A catalog from rows of allocatable amounts, one column per resource name. */
export function catalogOf(
  resourceNames: readonly string[],
  rows: readonly (readonly number[])[],
): SolverCatalog {
  return {
    resourceNames,
    typeCount: rows.length,
    allocatable: Float64Array.from(rows.flat()),
  };
}

/** A request vector (same column order as the catalog). */
export function req(...values: number[]): Float64Array {
  return Float64Array.from(values);
}

/** A mask over `typeCount` rows with the listed rows set. */
export function rows(typeCount: number, ...set: number[]): Uint32Array {
  return maskFromRows(typeCount, set);
}

/** A solver of `kind` with `catalog` loaded. */
export function loaded(kind: SolverKind, catalog: SolverCatalog): Solver {
  const solver = createSolver(kind);
  solver.load(catalog);
  return solver;
}

/**
 * Three node sizes over cpu (millicores), memory (bytes) and pods:
 * row 0 small (2 cores, 4 GiB, 30 pods), row 1 medium (4 cores, 16 GiB, 110 pods),
 * row 2 large (16 cores, 64 GiB, 250 pods).
 */
export function threeSizes(): SolverCatalog {
  return catalogOf(
    ['cpu', 'memory', 'pods'],
    [
      [2000, 4 * GiB, 30],
      [4000, 16 * GiB, 110],
      [16000, 64 * GiB, 250],
    ],
  );
}
