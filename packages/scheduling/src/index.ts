export {
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QuantityError,
  quantityToMilli,
  quantityToValue,
  type Quantity,
  type QuantityFormat,
} from './quantity.js';
export {
  addResources,
  CPU,
  fits,
  formatResourceList,
  isZero,
  maxResources,
  resourceListFromQuantities,
  ResourceListError,
  resourceNames,
  subtractResources,
  type ResourceList,
} from './resources.js';
export {
  labelValueAsInteger,
  Requirement,
  RequirementError,
  type NodeSelectorRequirementInput,
  type RequirementOperator,
} from './requirement.js';
export {
  allowUndefinedWellKnownLabels,
  Requirements,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
} from './requirements.js';
export {
  taintKey,
  tolerates,
  toleratesAll,
  type TaintLike,
  type TolerationLike,
} from './taints.js';
export { compileLabelSelector, type LabelMatcher } from './label-selector.js';
export {
  anyHostPortConflict,
  formatHostPort,
  hostPortsConflict,
  HostPortUsage,
  podHostPorts,
  type HostPort,
} from './host-ports.js';
export { podRequests } from './pod-requests.js';
export {
  podConstraints,
  relax,
  type PodConstraints,
  type PreferencePolicy,
  type RelaxationStep,
} from './pod-constraints.js';
export { checkMinValues, type MinValuesResult } from './min-values.js';
export { cheapestOfferingPrice, orderByPrice } from './instance-type-order.js';
export { requirementSignature, typeCompatible } from './catalog.js';
export { orderByWeight } from './node-pool-template.js';
export { queueOrder } from './queue.js';
export { PodDataCache, type PodDataCacheOptions } from './pod-data-cache.js';
export { DEFAULT_MAX_INSTANCE_TYPES, Scheduler } from './scheduler.js';
/** The most (NodePool, instance type) rows a scheduler's catalog holds (the solver's bound). */
export { MAX_CATALOG_ROWS } from '@karpenter-ts/solver';
export { VolumeUsage, type PodVolumes, type VolumeAttachment } from './volumes.js';
export type {
  ExistingNodeInput,
  ExistingNodePlacement,
  MinValuesPolicy,
  NewNodeClaim,
  SchedulerInstanceType,
  SchedulerOffering,
  SchedulerOptions,
  SolveOptions,
  SchedulingResults,
} from './scheduler-types.js';
