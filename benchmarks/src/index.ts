export { SeededRandom } from './rng.js';
export {
  benchmarkInstanceTypes,
  benchmarkNodePool,
  DIVERSE_SIZES,
  diversePods,
  LARGE_DIVERSE_SIZE,
  largeBenchmarkNodePool,
  PREFERENCE_PODS,
  preferencePods,
  SEED,
} from './scheduling-workload.js';
export {
  measureCase,
  UnscheduledPodsError,
  type SchedulingCaseResult,
} from './scheduling-bench.js';
