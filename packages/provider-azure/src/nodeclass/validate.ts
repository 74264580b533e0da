/**
 * Offline validation and defaulting of AKSNodeClass objects against the CRD in
 * crds/karpenter.azure.com_aksnodeclasses.yaml (OpenAPI schema, defaults and CEL rules, evaluated
 * by @karpenter-ts/api's generic CRD validator), so what passes here is what an apiserver with
 * our CRD installed accepts.
 */
import { readFileSync } from 'node:fs';
import { crdValidator, type CrdValidator, type Violation } from '@karpenter-ts/api';

/** Location of the AKSNodeClass CRD manifest inside the package. */
export const AKS_NODE_CLASS_CRD_URL = new URL(
  '../../crds/karpenter.azure.com_aksnodeclasses.yaml',
  import.meta.url,
);

let validator: CrdValidator | undefined;

/** The AKSNodeClass CRD validator (built on first use). @throws CrdDefinitionError if the CRD file is broken. */
export function aksNodeClassValidator(): CrdValidator {
  validator ??= crdValidator(readFileSync(AKS_NODE_CLASS_CRD_URL, 'utf8'));
  return validator;
}

/**
 * Every violation of an AKSNodeClass (either served version), each with a field path such as
 * `spec.osDiskSizeGB` and the rule broken; an empty list means valid. Defaults are applied before
 * checking, as the apiserver does. Pass `oldObj` to check update (transition) rules. Never throws
 * for bad input.
 */
export function validateAKSNodeClass(obj: unknown, oldObj?: unknown): Violation[] {
  return aksNodeClassValidator().validate(obj, oldObj === undefined ? {} : { oldObj });
}

/**
 * A copy of the AKSNodeClass with the CRD defaults applied (osDiskSizeGB 128, imageFamily Ubuntu,
 * ...). An AKSNodeClass without `spec` (or with `spec: null`) is read as one with an empty spec:
 * the CRD declares no default for `spec` itself, so its fields' defaults would otherwise never
 * apply, and every reader of the NodeClass expects a spec.
 */
export function defaultAKSNodeClass<T>(obj: T): T {
  const bare =
    typeof obj === 'object' &&
    obj !== null &&
    !Array.isArray(obj) &&
    ((obj as { spec?: unknown }).spec ?? null) === null;
  return aksNodeClassValidator().applyDefaults(bare ? ({ ...obj, spec: {} } as T) : obj);
}
