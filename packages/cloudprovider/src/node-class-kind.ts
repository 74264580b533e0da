import type { CloudProvider, NodeClassKind } from './types.js';

/**
 * Whether `cloudProvider` manages NodeClasses of `ref`'s group and kind (a NodePool's or
 * NodeClaim's `nodeClassRef`; its name is not looked at). Upstream's controllers skip NodePools
 * of other kinds the same way, so several providers can share a cluster.
 */
export function managesNodeClass(
  cloudProvider: Pick<CloudProvider, 'getSupportedNodeClasses'>,
  ref: NodeClassKind,
): boolean {
  return cloudProvider
    .getSupportedNodeClasses()
    .some((k) => k.group === ref.group && k.kind === ref.kind);
}
