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
export { Requirements, WELL_KNOWN_LABELS_ALLOW_UNDEFINED } from './requirements.js';
export {
  taintKey,
  tolerates,
  toleratesAll,
  type TaintLike,
  type TolerationLike,
} from './taints.js';
