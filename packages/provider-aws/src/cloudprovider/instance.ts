/**
 * EC2 instances and NodeClaims: provider IDs (`aws:///<zone>/<instance-id>`), the tags Karpenter
 * puts on what it launches, and an instance as a NodeClaim (for `get` and `list`).
 */
import type { Instance } from '@aws-sdk/client-ec2';
import type { NodeClaim } from '@karpenter-ts/api';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { formatResourceList } from '@karpenter-ts/scheduling';
import { AwsGroup, EC2NodeClassKind } from '../ec2nodeclass.js';
import { AwsLabels } from '../labels.js';

/** Tag keys Karpenter sets on instances, volumes, fleets and launch templates. */
export const AwsTags = {
  NodePool: 'karpenter.sh/nodepool',
  NodeClaim: 'karpenter.sh/nodeclaim',
  EC2NodeClass: 'karpenter.k8s.aws/ec2nodeclass',
  ClusterName: 'eks:eks-cluster-name',
} as const;

/** `kubernetes.io/cluster/<cluster>`. */
export const clusterTagKey = (clusterName: string): string =>
  `kubernetes.io/cluster/${clusterName}`;

/** `aws:///<zone>/<instance-id>`. */
export function providerIDFor(zone: string, instanceId: string): string {
  return `aws:///${zone}/${instanceId}`;
}

/** The instance ID of a provider ID, or undefined when it is not an AWS one. */
export function instanceIdOf(providerID: string): string | undefined {
  const m = /^aws:\/\/\/[^/]*\/(i-[0-9a-zA-Z]+)$/.exec(providerID);
  return m?.[1];
}

/** A tag's value. */
export function tagOf(instance: Instance, key: string): string | undefined {
  return instance.Tags?.find((t) => t.Key === key)?.Value;
}

/**
 * The NodeClaim view of an instance; capacity and allocatable when its type is known; capacity
 * type `reserved` with its `karpenter.k8s.aws/capacity-reservation-id` for an instance in a
 * capacity reservation.
 */
export function nodeClaimFromInstance(
  instance: Instance,
  region: string,
  instanceType?: InstanceType,
): NodeClaim {
  const zone = instance.Placement?.AvailabilityZone ?? '';
  const labels: Record<string, string> = {
    'node.kubernetes.io/instance-type': instance.InstanceType ?? '',
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    'karpenter.sh/capacity-type': instance.CapacityReservationId
      ? 'reserved'
      : instance.InstanceLifecycle === 'spot'
        ? 'spot'
        : 'on-demand',
    ...(instance.CapacityReservationId
      ? { [AwsLabels.CapacityReservationID]: instance.CapacityReservationId }
      : {}),
  };
  const nodePool = tagOf(instance, AwsTags.NodePool);
  if (nodePool !== undefined) labels['karpenter.sh/nodepool'] = nodePool;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: tagOf(instance, AwsTags.NodeClaim) ?? instance.InstanceId ?? '',
      labels,
      ...(instance.LaunchTime ? { creationTimestamp: instance.LaunchTime } : {}),
    },
    spec: {
      requirements: [],
      nodeClassRef: {
        group: AwsGroup,
        kind: EC2NodeClassKind,
        name: tagOf(instance, AwsTags.EC2NodeClass) ?? '',
      },
    },
    status: {
      providerID: providerIDFor(zone, instance.InstanceId ?? ''),
      ...(instance.ImageId ? { imageID: instance.ImageId } : {}),
      ...(instanceType
        ? {
            capacity: formatResourceList(instanceType.capacity),
            allocatable: formatResourceList(instanceType.allocatable()),
          }
        : {}),
    },
  };
}
