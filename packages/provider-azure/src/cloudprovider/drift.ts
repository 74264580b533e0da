/**
 * Drift of a launched node claim, checked in upstream `Azure/karpenter-provider-azure`'s order,
 * first hit wins:
 * 1. `NodeClassDrift`: the NodeClaim's NodeClass hash differs from the NodeClass's (only when both
 *    carry the same hash version). The hash covers the whole spec except tags, so a changed
 *    subnet, OS disk size, image family, kubelet setting, max pods, ... drifts here; upstream has
 *    no separate subnet check.
 * 2. `K8sVersionDrift`: the node's kubelet version differs from the NodeClass `status.kubernetesVersion`.
 * 3. `KubeletIdentityDrift`: the node's `kubernetes.azure.com/kubelet-identity-client-id` label
 *    differs from the operator's kubelet identity (a missing label is not drift).
 * 4. `ImageDrift`: the NodeClaim's image is not among the NodeClass `status.images`.
 */
import type { Node, NodeClaim } from '@karpenter-ts/api';
import type { AKSNodeClass } from '../nodeclass/types.js';
import {
  NodeClassHashAnnotation,
  NodeClassHashVersion,
  NodeClassHashVersionAnnotation,
  currentNodeClassHash,
} from './nodeclass-hash.js';

/** Drift reasons. */
export const DriftReason = {
  NodeClass: 'NodeClassDrift',
  K8sVersion: 'K8sVersionDrift',
  KubeletIdentity: 'KubeletIdentityDrift',
  Image: 'ImageDrift',
} as const;

/** The label AKS puts on nodes with the kubelet identity's client ID. */
export const KubeletIdentityLabel = 'kubernetes.azure.com/kubelet-identity-client-id';

/** Strips a leading `v` and any build suffix: `v1.33.2` -> `1.33.2`. */
function version(v: string): string {
  return v.replace(/^v/, '').split('+')[0] as string;
}

/**
 * The drift reason of a node claim, or '' when not drifted.
 * @param node the claim's Node when registered (kubelet version and labels live there).
 * @param kubeletIdentityClientID operator option `KUBELET_IDENTITY_CLIENT_ID`.
 */
export function driftReason(
  nodeClaim: NodeClaim,
  nodeClass: AKSNodeClass,
  node: Node | undefined,
  kubeletIdentityClientID: string | undefined,
): string {
  const ann = nodeClaim.metadata.annotations ?? {};
  const claimHash = ann[NodeClassHashAnnotation];
  if (claimHash !== undefined && ann[NodeClassHashVersionAnnotation] === NodeClassHashVersion) {
    const classVersion = nodeClass.metadata.annotations?.[NodeClassHashVersionAnnotation];
    if (
      (classVersion === undefined || classVersion === NodeClassHashVersion) &&
      claimHash !== currentNodeClassHash(nodeClass)
    )
      return DriftReason.NodeClass;
  }
  const wanted = nodeClass.status?.kubernetesVersion;
  const kubelet = node?.status?.nodeInfo?.kubeletVersion;
  if (wanted && kubelet && version(kubelet) !== version(wanted)) return DriftReason.K8sVersion;
  const identity = node?.metadata?.labels?.[KubeletIdentityLabel];
  if (kubeletIdentityClientID && identity !== undefined && identity !== kubeletIdentityClientID)
    return DriftReason.KubeletIdentity;
  const imageID = nodeClaim.status?.imageID;
  const images = nodeClass.status?.images;
  if (imageID && images && images.length > 0 && !images.some((i) => i.id === imageID))
    return DriftReason.Image;
  return '';
}
