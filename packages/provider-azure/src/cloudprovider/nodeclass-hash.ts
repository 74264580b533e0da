/**
 * The AKSNodeClass drift hash (upstream `Azure/karpenter-provider-azure`'s, hash version v3): a
 * hash of the whole spec except `tags` (tags are applied in place, so they never drift a node). A
 * NodeClaim carries the hash of the NodeClass it was launched from; a NodeClass whose hash differs
 * has drifted it.
 *
 * The value is sha256 over canonical JSON (sorted keys, undefined dropped), not upstream's
 * hashstructure number: hashes are compared only with hashes this provider wrote. The version
 * annotation lets a future change of the hash function avoid drifting every node.
 */
import { canonicalSha256 } from '../nodeclass/canonical-hash.js';
import type { AKSNodeClass } from '../nodeclass/types.js';

/** Annotation holding the NodeClass hash (on AKSNodeClass and NodeClaim). */
export const NodeClassHashAnnotation = 'karpenter.azure.com/aksnodeclass-hash';
/** Annotation holding the hash version. */
export const NodeClassHashVersionAnnotation = 'karpenter.azure.com/aksnodeclass-hash-version';
/** The current hash version. */
export const NodeClassHashVersion = 'v3';

/** Hex sha256 of the NodeClass spec without `tags`. */
export function aksNodeClassHash(nodeClass: AKSNodeClass): string {
  const { tags: _tags, ...spec } = nodeClass.spec;
  return canonicalSha256(spec);
}

/** The NodeClass's hash: its annotation when the hash controller wrote one, else computed. */
export function currentNodeClassHash(nodeClass: AKSNodeClass): string {
  const ann = nodeClass.metadata.annotations;
  if (
    ann?.[NodeClassHashAnnotation] &&
    ann[NodeClassHashVersionAnnotation] === NodeClassHashVersion
  )
    return ann[NodeClassHashAnnotation];
  return aksNodeClassHash(nodeClass);
}
