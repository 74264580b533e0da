import { AwsGroup, EC2NodeClassKind } from '../ec2nodeclass.js';

/**
 * The EC2NodeClass API resource (`karpenter.k8s.aws/v1`, plural `ec2nodeclasses`,
 * cluster-scoped), for an operator's informers and status writes.
 */
export const EC2NodeClassResource = {
  group: AwsGroup,
  version: 'v1',
  plural: 'ec2nodeclasses',
  kind: EC2NodeClassKind,
  namespaced: false,
} as const;
