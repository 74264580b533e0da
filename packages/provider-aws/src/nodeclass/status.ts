/**
 * What the EC2NodeClass status controller writes (upstream pkg/controllers/nodeclass):
 * `status.subnets`, `securityGroups`, `amis`, `instanceProfile`, `capacityReservations` (with the
 * ReservedCapacity feature gate) and the conditions `SubnetsReady`, `SecurityGroupsReady`,
 * `AMIsReady`, `InstanceProfileReady`, `CapacityReservationsReady` (with the gate),
 * `ValidationSucceeded`, rolled up into `Ready`, with the period after which to look again.
 * Pure of Kubernetes: it reads AWS and returns what to write.
 */
import type { AwsClients } from '../aws/clients.js';
import { awsErrorText, isAwsUnauthorized } from '../aws/errors.js';
import type { EC2NodeClass, EC2NodeClassStatus } from '../ec2nodeclass.js';
import type { ReservationCapacity } from '../launch/reservation-capacity.js';
import { AMISelectorError, resolveAMIs } from './amis.js';
import { resolveCapacityReservations } from './capacity-reservations.js';
import { resolveInstanceProfile } from './instance-profile.js';
import { resolveSecurityGroups } from './security-groups.js';
import { resolveSubnets } from './subnets.js';

/** Condition types of an EC2NodeClass. */
export const EC2NodeClassConditions = {
  SubnetsReady: 'SubnetsReady',
  SecurityGroupsReady: 'SecurityGroupsReady',
  AMIsReady: 'AMIsReady',
  InstanceProfileReady: 'InstanceProfileReady',
  CapacityReservationsReady: 'CapacityReservationsReady',
  ValidationSucceeded: 'ValidationSucceeded',
  Ready: 'Ready',
} as const;

/** Refresh periods, seconds (reference 1.1, 1.2, 4.1). */
export const EC2NodeClassRefreshSeconds = {
  /** `--subnet-refresh-interval` default. */
  subnets: 60,
  securityGroups: 300,
  /** The AMI reconciler's period; 60 when none was found. */
  amis: 300,
  amisNotFound: 60,
  /** The instance profile cache TTL. */
  instanceProfile: 900,
  /** The capacity reservation list cache TTL. */
  capacityReservations: 60,
} as const;

/** Tag keys `spec.tags` may not set (reference 1.1). */
export function restrictedTagProblem(
  tags: Readonly<Record<string, string>> | undefined,
): string | undefined {
  for (const key of Object.keys(tags ?? {})) {
    if (
      key === 'eks:eks-cluster-name' ||
      key.startsWith('kubernetes.io/cluster') ||
      key === 'karpenter.sh/nodepool' ||
      key === 'karpenter.sh/nodeclaim' ||
      key === 'karpenter.k8s.aws/ec2nodeclass'
    )
      return `spec.tags: tag key ${key} is restricted (set by Karpenter)`;
  }
  return undefined;
}

/** One condition to write. */
export interface EC2NodeClassConditionUpdate {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** What to write and when to look again. */
export interface EC2NodeClassResolution {
  /** The resolved fields; a part that could not be resolved keeps the previous status's value. */
  readonly status: Pick<
    EC2NodeClassStatus,
    'subnets' | 'securityGroups' | 'amis' | 'instanceProfile' | 'capacityReservations'
  >;
  /**
   * `SubnetsReady`, `SecurityGroupsReady`, `AMIsReady`, `InstanceProfileReady`,
   * `CapacityReservationsReady` (with the gate), `ValidationSucceeded`, then `Ready`.
   */
  readonly conditions: readonly EC2NodeClassConditionUpdate[];
  /** Seconds until the next pass: the shortest refresh period of what was looked at. */
  readonly requeueAfterSeconds: number;
}

/** What {@link resolveEC2NodeClassStatus} needs besides the NodeClass. */
export interface EC2NodeClassStatusContext {
  readonly clients: AwsClients;
  readonly region: string;
  readonly clusterName: string;
  /** The cluster's Kubernetes minor version, `1.36` (the AMI aliases' SSM paths). */
  readonly kubernetesVersion: string;
  /** Milliseconds since the epoch (AMI deprecation, capacity blocks expiring); default now. */
  readonly now?: number;
  /**
   * The core `ReservedCapacity` feature gate (default true, as upstream): off, capacity
   * reservations are neither resolved nor given a condition, and `status.capacityReservations`
   * is left as it was.
   */
  readonly reservedCapacity?: boolean;
  /** Given the reservations' available counts on each successful resolution (the launch path's). */
  readonly reservationCapacity?: ReservationCapacity;
}

const ok = (type: string): EC2NodeClassConditionUpdate => ({
  type,
  status: 'True',
  reason: type,
  message: '',
});

/**
 * Reads AWS for every selector of `nodeClass` and returns the status to write. A selector that
 * matches nothing makes its condition False (`SubnetsNotFound`, `SecurityGroupsNotFound`,
 * `AMINotFound`) and `Ready` False with that reason; an unauthorized call does the same with
 * reason `Unauthorized` and the AWS error text. Other AWS failures (throttling beyond the SDK's
 * retries, the network) are raised, so the controller's work queue retries with backoff and the
 * status stays as it was, as upstream's reconciler does.
 */
export async function resolveEC2NodeClassStatus(
  ctx: EC2NodeClassStatusContext,
  nodeClass: EC2NodeClass,
): Promise<EC2NodeClassResolution> {
  const spec = nodeClass.spec;
  const previous = nodeClass.status ?? {};
  const conditions: EC2NodeClassConditionUpdate[] = [];
  const status: EC2NodeClassResolution['status'] = {};
  const C = EC2NodeClassConditions;
  let requeue: number = EC2NodeClassRefreshSeconds.subnets;

  const unauthorized = (type: string, what: string, err: unknown): EC2NodeClassConditionUpdate => {
    if (!isAwsUnauthorized(err)) throw err;
    return {
      type,
      status: 'False',
      reason: 'Unauthorized',
      message: `${what}: ${awsErrorText(err)}`,
    };
  };

  try {
    const subnets = await resolveSubnets(ctx.clients.ec2, spec.subnetSelectorTerms ?? []);
    status.subnets = subnets.map(({ id, zone, zoneID }) => ({
      id,
      zone,
      ...(zoneID ? { zoneID } : {}),
    }));
    conditions.push(
      subnets.length > 0
        ? ok(C.SubnetsReady)
        : {
            type: C.SubnetsReady,
            status: 'False',
            reason: 'SubnetsNotFound',
            message: 'SubnetSelector did not match any Subnets',
          },
    );
  } catch (err) {
    if (previous.subnets) status.subnets = previous.subnets;
    conditions.push(unauthorized(C.SubnetsReady, 'DescribeSubnets', err));
  }

  try {
    const groups = await resolveSecurityGroups(
      ctx.clients.ec2,
      spec.securityGroupSelectorTerms ?? [],
    );
    status.securityGroups = groups;
    conditions.push(
      groups.length > 0
        ? ok(C.SecurityGroupsReady)
        : {
            type: C.SecurityGroupsReady,
            status: 'False',
            reason: 'SecurityGroupsNotFound',
            message: 'SecurityGroupSelector did not match any SecurityGroups',
          },
    );
  } catch (err) {
    if (previous.securityGroups) status.securityGroups = previous.securityGroups;
    conditions.push(unauthorized(C.SecurityGroupsReady, 'DescribeSecurityGroups', err));
  }

  try {
    const amis = await resolveAMIs(
      ctx.clients,
      spec.amiSelectorTerms ?? [],
      ctx.kubernetesVersion,
      ctx.now,
    );
    status.amis = amis;
    if (amis.length === 0) requeue = Math.min(requeue, EC2NodeClassRefreshSeconds.amisNotFound);
    conditions.push(
      amis.length > 0
        ? ok(C.AMIsReady)
        : {
            type: C.AMIsReady,
            status: 'False',
            reason: 'AMINotFound',
            message: 'AMISelector did not match any AMIs',
          },
    );
  } catch (err) {
    if (previous.amis) status.amis = previous.amis;
    if (err instanceof AMISelectorError)
      conditions.push({
        type: C.AMIsReady,
        status: 'False',
        reason: 'AMINotFound',
        message: err.message,
      });
    else conditions.push(unauthorized(C.AMIsReady, 'resolving AMIs', err));
  }

  try {
    const profile = await resolveInstanceProfile(ctx.clients.iam, {
      region: ctx.region,
      clusterName: ctx.clusterName,
      nodeClassName: nodeClass.metadata.name ?? '',
      nodeClassUID: nodeClass.metadata.uid ?? '',
      ...(spec.role ? { role: spec.role } : {}),
      ...(spec.instanceProfile ? { instanceProfile: spec.instanceProfile } : {}),
    });
    if (profile.ready) {
      status.instanceProfile = profile.name;
      conditions.push(ok(C.InstanceProfileReady));
    } else
      conditions.push({
        type: C.InstanceProfileReady,
        status: 'False',
        reason: profile.reason,
        message: profile.message,
      });
  } catch (err) {
    if (previous.instanceProfile) status.instanceProfile = previous.instanceProfile;
    conditions.push(unauthorized(C.InstanceProfileReady, 'instance profile', err));
  }

  if (ctx.reservedCapacity ?? true) {
    try {
      const reservations = await resolveCapacityReservations(
        ctx.clients.ec2,
        spec.capacityReservationSelectorTerms ?? [],
        ctx.now ?? Date.now(),
      );
      ctx.reservationCapacity?.observe(reservations);
      requeue = Math.min(requeue, EC2NodeClassRefreshSeconds.capacityReservations);
      status.capacityReservations = reservations.map(
        ({ availableInstanceCount: _count, ...entry }) => entry,
      );
      // Reservations are capacity to use when present: selecting none is not a failure.
      conditions.push(ok(C.CapacityReservationsReady));
    } catch (err) {
      if (previous.capacityReservations)
        status.capacityReservations = previous.capacityReservations;
      conditions.push(
        unauthorized(C.CapacityReservationsReady, 'DescribeCapacityReservations', err),
      );
    }
  }

  const tagProblem = restrictedTagProblem(spec.tags);
  const notReady = conditions.find((c) => c.status !== 'True');
  conditions.push(
    tagProblem
      ? {
          type: C.ValidationSucceeded,
          status: 'False',
          reason: 'TagValidationFailed',
          message: tagProblem,
        }
      : notReady
        ? {
            type: C.ValidationSucceeded,
            status: 'False',
            reason: 'DependenciesNotReady',
            message: `${notReady.type} is ${notReady.status}`,
          }
        : ok(C.ValidationSucceeded),
  );
  const firstFalse = conditions.find((c) => c.status !== 'True');
  conditions.push(
    firstFalse
      ? {
          type: C.Ready,
          status: firstFalse.status,
          reason: firstFalse.reason,
          message: firstFalse.message,
        }
      : ok(C.Ready),
  );
  return { status, conditions, requeueAfterSeconds: requeue };
}
