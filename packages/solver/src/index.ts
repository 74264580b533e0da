export type { Solver, SolverCatalog, SolverKind } from './types.js';
export { createSolver } from './create-solver.js';
export { MAX_FIT_THRESHOLDS, type SolverOptions } from './fit-index.js';
export { CORE_SORT_MAX_KEY_BYTES } from './row-order.js';
export { TsSolver, createTsSolver } from './ts-solver.js';
export {
  WasmSolver,
  SOLVER_WASM_URL,
  createWasmSolver,
  createWasmSolverSync,
} from './wasm-solver.js';
export { validateCatalog, MAX_CATALOG_ROWS, type CatalogShape } from './catalog-validation.js';
export {
  maskWordsFor,
  lastWordMask,
  fullMask,
  maskFromRows,
  rowsOfMask,
  countRows,
  popcount32,
} from './masks.js';
