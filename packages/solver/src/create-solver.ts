import { createTsSolver } from './ts-solver.js';
import { createWasmSolverSync } from './wasm-solver.js';
import type { Solver, SolverKind } from './types.js';

/**
 * A solver of the given kind with an empty catalog: `'wasm'` runs the AssemblyScript core
 * (build/solver.wasm), `'ts'` its TypeScript twin. Both return identical results.
 * @throws Error if `'wasm'` is asked for and the .wasm has not been built.
 * @throws RangeError for an unknown kind.
 */
export function createSolver(kind: SolverKind): Solver {
  if (kind === 'wasm') return createWasmSolverSync();
  if (kind === 'ts') return createTsSolver();
  throw new RangeError(`solver: kind must be "wasm" or "ts", got ${JSON.stringify(kind)}`);
}
