/**
 * The CRD manifests shipped in `packages/api/crds/` (the single source of truth) and the
 * validators built from them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { crdValidator } from './validation/crd-validator.js';
import type { CrdValidator } from './validation/crd-validator.js';
import {
  NodeClaimDeprecatedFields,
  NodePoolDeprecatedFields,
  RenamedValues,
  UnsupportedVersions,
} from './validation/deprecated-fields.js';

/** File names of the karpenter.sh CRDs, by kind. */
export const CrdFiles = {
  NodePool: 'karpenter.sh_nodepools.yaml',
  NodeClaim: 'karpenter.sh_nodeclaims.yaml',
  NodeOverlay: 'karpenter.sh_nodeoverlays.yaml',
} as const;

/** A karpenter.sh kind this package ships a CRD for. */
export type KarpenterKind = keyof typeof CrdFiles;

/** Absolute path of a shipped CRD manifest (works from `src/` and from `dist/`). */
export function crdPath(kind: KarpenterKind): string {
  return fileURLToPath(new URL(`../crds/${CrdFiles[kind]}`, import.meta.url));
}

/** The parsed CRD document of a karpenter.sh kind. @throws if the file is missing (broken install). */
export function crdDocument(kind: KarpenterKind): Record<string, unknown> {
  return parseYaml(readFileSync(crdPath(kind), 'utf8')) as Record<string, unknown>;
}

const cache = new Map<KarpenterKind, CrdValidator>();

/** The validator for a karpenter.sh kind, built once from its CRD file, with hints for fields of older APIs. */
export function karpenterValidator(kind: KarpenterKind): CrdValidator {
  let v = cache.get(kind);
  if (!v) {
    v = crdValidator(crdDocument(kind), {
      deprecatedFields:
        kind === 'NodePool'
          ? NodePoolDeprecatedFields
          : kind === 'NodeClaim'
            ? NodeClaimDeprecatedFields
            : {},
      renamedValues: kind === 'NodePool' ? RenamedValues : {},
      unsupportedVersions: UnsupportedVersions,
    });
    cache.set(kind, v);
  }
  return v;
}

/** Validators for NodePool, NodeClaim and NodeOverlay. */
export function karpenterValidators(): CrdValidator[] {
  return (Object.keys(CrdFiles) as KarpenterKind[]).map(karpenterValidator);
}
