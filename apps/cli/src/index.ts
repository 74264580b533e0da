/**
 * @karpenter-ts/cli as a library: the command line runner and the pieces the `karpenter-ts`
 * commands are made of, for apps (e.g. the simulator) that read the same manifests.
 */
export { run, buildProgram, type Runtime } from './program.js';
export { memoryIo, processIo, type Io } from './io.js';
export { commanderOutput, packageVersion } from './commander-output.js';
export { CliError, ManifestError, UsageError, EXIT_INPUT, EXIT_USAGE } from './errors.js';
export {
  fieldPath,
  location,
  objectName,
  type KubeObject,
  type ManifestDocument,
} from './manifests/document.js';
export { parseManifestText, type ParseResult } from './manifests/parse.js';
export {
  loadManifests,
  loadManifestsStrict,
  manifestFiles,
  MANIFEST_EXTENSIONS,
  type LoadResult,
} from './manifests/load.js';
export { inventory, apiGroup, NODE_CLASS_GROUPS, type Inventory } from './manifests/inventory.js';
export {
  expandWorkloads,
  WORKLOAD_KINDS,
  type ExpandOptions,
  type ExpandedWorkloads,
  type WorkloadSummary,
} from './workloads/expand.js';
export { applyPodDefaults } from './workloads/defaulting.js';
export { scaleCount } from './workloads/scale.js';
export {
  allowUndefinedLabels,
  referencesCloud,
  type Cloud,
  type NodeClassProblem,
} from './clouds/cloud.js';
export { createCloud, DEFAULT_REGIONS } from './clouds/select.js';
export {
  launchableInstanceTypes,
  catalogEntryJson,
  type CatalogEntry,
  type CatalogEntryJson,
} from './clouds/catalog-view.js';
export { CLOUD_NAMES, type CloudName, type CloudTarget } from './commands/options.js';
export {
  validateDocuments,
  formatProblem,
  type Problem,
  type ValidationReport,
} from './validation/validate-documents.js';
export {
  planNodePools,
  type NodePoolPlan,
  type PlannedNodePool,
  type NodePoolOrigin,
} from './simulation/node-pools.js';
export { chooseLaunch, type Launch } from './simulation/launch.js';
export {
  simulate,
  podName,
  type Simulation,
  type SimulateOptions,
  type SimulatedNodeClaim,
  type SimulatedExistingNode,
} from './simulation/simulate.js';
export {
  simulationReport,
  totals,
  utilization,
  type SimulationReport,
  type NodeClaimReport,
  type Totals,
  type Utilization,
} from './simulation/report.js';
export { comparisonRow, HOURS_PER_MONTH, type ComparisonRow } from './simulation/comparison.js';
export { explainPod, type Explanation } from './explain/explain-pod.js';
export { explainNodePool, type NodePoolVerdict, type CloseInstanceType } from './explain/why.js';
export {
  readSnapshot,
  type ReadSnapshotOptions,
  type SnapshotRead,
  type IgnoredObject,
  type WorkloadPending,
} from './snapshot/read-snapshot.js';
export { snapshotCloud } from './snapshot/snapshot-cloud.js';
export { IGNORED_KINDS, READ_KINDS } from './snapshot/kinds.js';
export { startCluster, type ClusterOptions, type RunningCluster } from './cluster/cluster-loop.js';
export { clusterCloud, type ClusterCloud } from './cluster/sim-cloud.js';
export { runDisruptionPass } from './disrupt/disruption-pass.js';
export { disruptionReport, type DisruptionReport } from './disrupt/disruption-report.js';
export { CommandLog, runUntilStable, type StabilizationReport } from './disrupt/until-stable.js';
