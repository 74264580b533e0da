/**
 * Whether a NodePool's `nodeClassRef` names a NodeClass kind some cloud serves. Upstream
 * Karpenter ignores a NodePool whose `nodeClassRef` (group and kind) its provider does not serve:
 * it never launches from it. The CLI says so in `validate` and leaves such a NodePool out of
 * `simulate`/`compare` (it is not retargeted like a pool of another cloud's known kind).
 */
import type { NodePool } from '@karpenter-ts/api';
import { NODE_CLASS_GROUPS } from '../manifests/inventory.js';

/** The provider NodeClass kinds users write, with their API groups, for messages. */
const SERVED_KINDS = ['AKSNodeClass', 'EC2NodeClass'] as const;

/** A NodePool's nodeClassRef problem: the field (path inside the NodePool) and why. */
export interface NodeClassRefProblem {
  /** `spec.template.spec.nodeClassRef.kind` or `.group`. */
  readonly path: string;
  readonly message: string;
}

/**
 * The problem of `nodePool`'s `spec.template.spec.nodeClassRef` when no cloud serves its kind in
 * its group (e.g. a misspelt `AKSNodeClas`, or `AKSNodeClass` in `karpenter.k8s.aws`); undefined
 * when the kind is served, or when the ref is missing (the CRD schema reports that).
 */
export function unservedNodeClassRef(nodePool: NodePool): NodeClassRefProblem | undefined {
  const ref = nodePool.spec?.template?.spec?.nodeClassRef as
    { group?: unknown; kind?: unknown } | undefined;
  if (typeof ref?.kind !== 'string' || typeof ref.group !== 'string') return undefined;
  const group = NODE_CLASS_GROUPS[ref.kind];
  if (group === ref.group) return undefined;
  const served = SERVED_KINDS.map((k) => `${k} in ${NODE_CLASS_GROUPS[k]}`).join(', ');
  const ignored = 'no cloud launches from this NodePool (Karpenter ignores it)';
  return group === undefined
    ? {
        path: 'spec.template.spec.nodeClassRef.kind',
        message: `"${ref.kind}" (group ${ref.group}) is not a NodeClass kind any cloud serves (${served}): ${ignored}`,
      }
    : {
        path: 'spec.template.spec.nodeClassRef.group',
        message: `"${ref.group}" does not serve kind ${ref.kind} (${served}): ${ignored}`,
      };
}
