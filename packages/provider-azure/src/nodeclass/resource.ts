/** Where AKSNodeClass lives in the Kubernetes API. */
import { AKSNodeClassGroup, AKSNodeClassKind } from './types.js';

/**
 * The AKSNodeClass resource (`karpenter.azure.com/v1beta1`, plural `aksnodeclasses`,
 * cluster-scoped), in the shape `@karpenter-ts/kube` takes for NodeClass kinds.
 */
export const AKSNodeClassResource = {
  group: AKSNodeClassGroup,
  version: 'v1beta1',
  plural: 'aksnodeclasses',
  kind: AKSNodeClassKind,
  namespaced: false,
} as const;
