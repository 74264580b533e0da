/**
 * karpenter-ts-sim as a library: read a scenario, run it on the real controllers over time, and
 * the output format the measures are written in.
 */
export * from './measures/format.js';
export { loadScenario, parseScenario } from './scenario/load.js';
export { ScenarioError, formatProblem, type ScenarioProblem } from './scenario/problems.js';
export { SCENARIO_SCHEMA, EVENT_TYPES } from './scenario/schema.js';
export { readTrace, TRACE_COLUMNS } from './scenario/trace.js';
export type * from './scenario/types.js';
export { runScenario, type RunOptions } from './engine/run.js';
export { simulateScenario, outputJson, type SimulateOptions } from './engine/simulate.js';
export { karpenter } from './engine/karpenter.js';
export type {
  Autoscaler,
  AutoscalerContext,
  AutoscalerFactory,
  SimulatedCluster,
} from './engine/autoscaler.js';
export { DEFAULT_NODE_STARTUP } from './engine/node-startup.js';
export { samplesCsv, nodesCsv, eventsCsv } from './measures/csv.js';
export { reportHtml } from './report/html.js';
export { reportData, reportPage, TIMELINE_EVENT_TYPES } from './report/report-data.js';
export type * from './report/report-data.js';
export { summaryRows, SUMMARY_COLUMNS } from './report/summary-rows.js';
export { readOutput, mergeOutputs, groupOutputs } from './report/read-output.js';
export { autoscalerFactory } from './engine/autoscalers.js';
export {
  clusterAutoscaler,
  type ClusterAutoscalerSettings,
} from './cluster-autoscaler/cluster-autoscaler.js';
export { AUTOSCALER_NAMES } from './scenario/types.js';
