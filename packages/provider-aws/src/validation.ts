/**
 * EC2NodeClass validation and defaulting, driven by the CRD in crds/ (the single source of the
 * schema, defaults and CEL rules) through @karpenter-ts/api's generic `crdValidator`, so what
 * passes here is what a kube-apiserver with our CRD installed would accept.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crdValidator, type CrdValidator, type Violation } from '@karpenter-ts/api';

/** File name of the EC2NodeClass CRD in crds/. */
export const EC2NodeClassCrdFile = 'karpenter.k8s.aws_ec2nodeclasses.yaml';

/** Absolute path of the EC2NodeClass CRD manifest (works from `src/` and `dist/`). */
export function ec2NodeClassCrdPath(): string {
  return fileURLToPath(new URL(`../crds/${EC2NodeClassCrdFile}`, import.meta.url));
}

let validator: CrdValidator | undefined;

/**
 * The validator for EC2NodeClass, built once from the CRD file.
 * @throws Error if the CRD file is missing (a broken install) or CrdDefinitionError if it is unusable.
 */
export function ec2NodeClassValidator(): CrdValidator {
  validator ??= crdValidator(readFileSync(ec2NodeClassCrdPath(), 'utf8'), {
    unsupportedVersions: {
      'karpenter.k8s.aws/v1beta1/EC2NodeClass':
        'karpenter.k8s.aws/v1beta1 is no longer served; use karpenter.k8s.aws/v1 (see the upstream v1 migration guide)',
    },
  });
  return validator;
}

/**
 * Every problem with an EC2NodeClass object at once, each with a field path (e.g.
 * `spec.amiSelectorTerms[0].alias`), the rule it broke and a plain message: wrong
 * apiVersion/kind, unknown fields, OpenAPI violations (types, enums, patterns, bounds, required)
 * and every CEL rule (role xor instanceProfile, alias rules, tag restrictions, kubelet rules, …).
 * Schema defaults are applied first, as the apiserver does. Never throws for bad input; an empty
 * list means valid.
 */
export function validateEC2NodeClass(obj: unknown): Violation[] {
  return ec2NodeClassValidator().validate(obj);
}

/** A copy of the object with the CRD's schema defaults applied (e.g. `spec.metadataOptions`). */
export function applyEC2NodeClassDefaults<T>(obj: T): T {
  return ec2NodeClassValidator().applyDefaults(obj);
}
