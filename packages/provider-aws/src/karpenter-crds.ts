/**
 * The karpenter.sh CRDs as the AWS provider installs them (issue 15, Validation 3), and the
 * known requirement values its NodePool validation checks. Upstream's AWS provider patches its
 * copies of the NodePool, NodeClaim and NodeOverlay CRDs so that label and requirement keys in
 * the `karpenter.k8s.aws` domain are limited to its well-known labels.
 */
import {
  labelDomainRule,
  providerKarpenterCrd,
  providerKarpenterValidators,
  type CrdValidator,
  type KarpenterKind,
  type ProviderCrdRules,
} from '@karpenter-ts/api';
import { AwsLabels, AwsWellKnownLabels } from './labels.js';

/** The AWS provider's label domain. */
export const AwsLabelDomain = 'karpenter.k8s.aws';

const inDomain = (k: string): boolean => k.startsWith(`${AwsLabelDomain}/`);

/** The rules the AWS provider adds to the karpenter.sh CRDs. */
export const AwsKarpenterCrdRules: ProviderCrdRules = {
  provider: 'aws',
  labels: [
    labelDomainRule(
      AwsLabelDomain,
      [...[...AwsWellKnownLabels].filter(inDomain), AwsLabels.EC2NodeClass],
      'labels',
      "labels in the karpenter.k8s.aws domain are limited to the AWS provider's well-known labels (on the AWS provider's CRD)",
    ),
  ],
  requirementKey: [
    labelDomainRule(
      AwsLabelDomain,
      [...AwsWellKnownLabels].filter(inDomain),
      'key',
      "requirement keys in the karpenter.k8s.aws domain are limited to the AWS provider's well-known labels (on the AWS provider's CRD)",
    ),
  ],
};

/** A karpenter.sh CRD as the AWS provider installs it. */
export function awsKarpenterCrd(kind: KarpenterKind): Record<string, unknown> {
  return providerKarpenterCrd(kind, AwsKarpenterCrdRules);
}

/** NodePool, NodeClaim and NodeOverlay validators as the AWS provider's CRDs judge objects. */
export function awsKarpenterValidators(): CrdValidator[] {
  return providerKarpenterValidators(AwsKarpenterCrdRules);
}

/**
 * Known values of the AWS well-known requirement keys besides capacity type, checked by the
 * NodePool validation: `instance-tenancy` is `default` or `dedicated`.
 */
export const AwsWellKnownValues: Readonly<Record<string, readonly string[]>> = {
  [AwsLabels.InstanceTenancy]: ['default', 'dedicated'],
};
