/**
 * The default EC2NodeClass and NodePool the CLI and simulator use when the user brings none.
 * They mirror the upstream getting-started manifests: AL2023 (latest) AMIs, discovery by the
 * `karpenter.sh/discovery` tag, and a NodePool of on-demand amd64 Linux c/m/r instances newer
 * than generation 2.
 */
import type { NodePool } from '@karpenter-ts/api';
import { AwsGroup, AwsV1, EC2NodeClassKind, type EC2NodeClass } from './ec2nodeclass.js';

/** Name of the default EC2NodeClass and NodePool. */
export const DefaultName = 'default';

/**
 * The default EC2NodeClass: `amiSelectorTerms: [{alias: al2023@latest}]`, subnets and security
 * groups selected by tag `karpenter.sh/discovery=<clusterName>`, node role
 * `KarpenterNodeRole-<clusterName>`. No status, so every zone the region offers is used.
 * A fresh object on every call.
 */
export function defaultEC2NodeClass(options: { clusterName?: string } = {}): EC2NodeClass {
  const cluster = options.clusterName ?? 'karpenter-ts';
  return {
    apiVersion: AwsV1,
    kind: EC2NodeClassKind,
    metadata: { name: DefaultName },
    spec: {
      role: `KarpenterNodeRole-${cluster}`,
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster } }],
    },
  };
}

/**
 * The default NodePool for AWS: on-demand, amd64, Linux; `karpenter.k8s.aws/instance-category`
 * In [c, m, r] and `karpenter.k8s.aws/instance-generation` Gt 2; refers to the default
 * EC2NodeClass; expireAfter 720h; cpu limit 1000; consolidation WhenEmptyOrUnderutilized after
 * 1m. A fresh object on every call.
 */
export function defaultAwsNodePool(): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: DefaultName },
    spec: {
      template: {
        spec: {
          requirements: [
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
            { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
          ],
          nodeClassRef: { group: AwsGroup, kind: EC2NodeClassKind, name: DefaultName },
          expireAfter: '720h',
        },
      },
      limits: { cpu: '1000' },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m' },
    },
  };
}
