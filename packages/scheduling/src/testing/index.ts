export {
  affinityTerm,
  daemonSet,
  existingNode,
  instanceType,
  instanceTypes,
  nodePool,
  pod,
  spread,
  standardInstanceTypes,
  TEST_ZONES,
  unschedulablePod,
  unschedulablePods,
  type DaemonSetOptions,
  type ExistingNodeOptions,
  type InstanceTypeOptions,
  type NodePoolOptions,
  type OfferingOptions,
  type PodOptions,
  type TestInstanceType,
} from './builders.js';
export {
  expectNewNodeClaim,
  expectNotScheduled,
  expectScheduled,
  expectSkew,
  placementOf,
  type Placement,
} from './expectations.js';
export { validateAssignment, type ValidationInput } from './validate.js';
export { schedule, schedulerOptions, type TestEnvironment } from './harness.js';
