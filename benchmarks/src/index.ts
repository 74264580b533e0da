export { SeededRandom } from './rng.js';
export {
  benchmarkInstanceTypes,
  benchmarkNodePool,
  DIVERSE_SIZES,
  diversePods,
  genericPods,
  LARGE_DIVERSE_SIZE,
  LARGE_PENDING_SIZE,
  largeBenchmarkNodePool,
  PENDING_SIZES,
  pendingNodePool,
  PREFERENCE_PODS,
  preferencePods,
  SEED,
} from './scheduling-workload.js';
export {
  measureCase,
  UnscheduledPodsError,
  type SchedulerClass,
  type SchedulingCaseResult,
} from './scheduling-bench.js';
export {
  measureDisruption,
  simulationCounters,
  type DisruptionCaseOptions,
  type DisruptionCaseResult,
  type PassRecord,
} from './disruption-bench.js';
export {
  applyCommand,
  clusterCost,
  deleteHalf,
  disruptionNodePool,
  emptyCluster,
  provision,
  resourceLowerBound,
  type BenchCluster,
  type ClusterCost,
} from './disruption-cluster.js';
