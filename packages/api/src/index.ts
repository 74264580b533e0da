export type * from './types/core.js';
export * from './types/common.js';
export * from './types/nodepool.js';
export * from './types/nodeclaim.js';
export * from './types/nodeoverlay.js';
export * from './labels.js';
export { formatPath } from './validation/violation.js';
export type { ApiServerAction, PathSegment, Violation } from './validation/violation.js';
export { crdValidator, CrdDefinitionError } from './validation/crd-validator.js';
export { objectMetaViolations } from './validation/object-meta.js';
export type { MetadataProblem } from './validation/object-meta.js';
export type {
  CrdValidator,
  CrdValidatorOptions,
  ValidateOptions,
} from './validation/crd-validator.js';
export type { DeprecatedFields } from './validation/deprecated-fields.js';
export type { CelRule } from './validation/schema-nodes.js';
export {
  forbiddenKeyRule,
  labelDomainRule,
  providerKarpenterCrd,
  providerKarpenterValidators,
} from './provider-crds.js';
export type { ProviderCrdRules } from './provider-crds.js';
export type { OpenApiSchema } from './validation/openapi-to-json-schema.js';
export { CrdFiles, crdDocument, crdPath, karpenterValidator, karpenterValidators } from './crds.js';
export type { KarpenterKind } from './crds.js';
export { validate, applyDefaults, dropPrunedNulls } from './validate.js';
export { didYouMean } from './did-you-mean.js';
export type { ValidateObjectOptions } from './validate.js';
export { MAX_MANIFEST_DEPTH, parseManifests, validateYaml } from './manifests.js';
export type {
  Manifest,
  ManifestOptions,
  ManifestViolation,
  ParseManifestsOptions,
  ParsedManifests,
} from './manifests.js';
export {
  validateNodePoolRuntime,
  validateNodeOverlayRuntime,
  qualifiedNameProblem,
  labelValueProblem,
} from './runtime-validation.js';
export type { RuntimeValidationOptions } from './runtime-validation.js';
export { nodePoolHash, NodePoolHashVersion } from './hash.js';
export { parseDuration, formatDuration, DurationError } from './duration.js';
