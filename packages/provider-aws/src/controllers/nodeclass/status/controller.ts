/**
 * The EC2NodeClass status controller, after upstream `aws/karpenter-provider-aws`'s
 * `pkg/controllers/nodeclass` (v1.14): one reconciler per EC2NodeClass
 * (`karpenter.k8s.aws/v1`, cluster-scoped) writing `status.subnets`, `securityGroups`, `amis`,
 * `instanceProfile`, `capacityReservations` and the conditions `SubnetsReady`,
 * `SecurityGroupsReady`, `AMIsReady`, `InstanceProfileReady`, `CapacityReservationsReady` (the
 * last two with the ReservedCapacity gate), `ValidationSucceeded` and `Ready`, as {@link resolveEC2NodeClassStatus}
 * decides them. Every condition carries `observedGeneration` and keeps its transition time while
 * its status holds. The status is written only when it changed; the next pass comes after the
 * shortest refresh period of what it read (1 minute: subnets). Before its first status write it
 * puts the `karpenter.k8s.aws/termination` finalizer on the NodeClass, as upstream's status
 * controller does, so deleting it runs the termination controller's cleanup.
 */
import {
  isConflict,
  isNotFound,
  setNodeClassCondition,
  writeNodeClassStatus,
  type Clock,
  type KubeClient,
  type NodeClassObject,
  type ReconcileResult,
} from '@karpenter-ts/controllers';
import type { AwsClients } from '../../../aws/clients.js';
import {
  AwsGroup,
  EC2NodeClassKind,
  EC2NodeClassTerminationFinalizer,
  type EC2NodeClass,
} from '../../../ec2nodeclass.js';
import type { ReservationCapacity } from '../../../launch/reservation-capacity.js';
import { resolveEC2NodeClassStatus } from '../../../nodeclass/status.js';

/** What {@link reconcileEC2NodeClass} needs. */
export interface EC2NodeClassStatusControllerContext {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly clients: AwsClients;
  readonly region: string;
  readonly clusterName: string;
  /** The cluster's Kubernetes minor version, `1.36` (the AMI aliases' SSM paths). */
  kubernetesVersion(): Promise<string>;
  /** The core `ReservedCapacity` feature gate; default true. */
  readonly reservedCapacity?: boolean;
  /** The cloud provider's reservation counts, refreshed on each pass (`AwsCloudProvider.reservationCapacity`). */
  readonly reservationCapacity?: ReservationCapacity;
}

/**
 * Adds the termination finalizer when missing, then reconciles the named EC2NodeClass's status
 * and writes it when it changed. Returns requeue after `requeueAfterSeconds` of the resolution,
 * 1 s after a write conflict, `{}` when the NodeClass is missing or deleting. Raises AWS failures other than "not found" and
 * "unauthorized" (see resolveEC2NodeClassStatus), leaving the status as it was, so the work
 * queue retries with backoff.
 */
export async function reconcileEC2NodeClass(
  ctx: EC2NodeClassStatusControllerContext,
  name: string,
): Promise<ReconcileResult> {
  let current = await ctx.client.get('NodeClass', {
    name,
    nodeClass: { group: AwsGroup, kind: EC2NodeClassKind },
  });
  if (current === undefined || current.kind !== EC2NodeClassKind) return {};
  if (current.metadata.deletionTimestamp !== undefined) return {};
  if (!(current.metadata.finalizers ?? []).includes(EC2NodeClassTerminationFinalizer)) {
    const withFinalizer: NodeClassObject = structuredClone(current);
    withFinalizer.metadata.finalizers = [
      ...(current.metadata.finalizers ?? []),
      EC2NodeClassTerminationFinalizer,
    ];
    try {
      current = await ctx.client.update('NodeClass', withFinalizer);
    } catch (err) {
      if (isNotFound(err)) return {};
      if (isConflict(err)) return { requeueAfter: 1 };
      throw err;
    }
  }
  const nodeClass = current as unknown as EC2NodeClass;
  const resolution = await resolveEC2NodeClassStatus(
    {
      clients: ctx.clients,
      region: ctx.region,
      clusterName: ctx.clusterName,
      kubernetesVersion: await ctx.kubernetesVersion(),
      now: ctx.clock.now(),
      ...(ctx.reservedCapacity !== undefined ? { reservedCapacity: ctx.reservedCapacity } : {}),
      ...(ctx.reservationCapacity ? { reservationCapacity: ctx.reservationCapacity } : {}),
    },
    nodeClass,
  );
  const nowIso = new Date(ctx.clock.now()).toISOString();
  let conditions = current.status?.conditions ?? [];
  for (const c of resolution.conditions)
    conditions = setNodeClassCondition(
      conditions,
      c,
      current.metadata.generation,
      nowIso,
    ) as typeof conditions;
  const before = current.status ?? {};
  const status = { ...before, ...resolution.status, conditions };
  const done: ReconcileResult = { requeueAfter: resolution.requeueAfterSeconds };
  if (JSON.stringify(status) === JSON.stringify(before)) return done;
  const next: NodeClassObject = { ...structuredClone(current), status };
  const outcome = await writeNodeClassStatus(ctx.client, next);
  if (outcome === 'gone') return {};
  if (outcome === 'conflict') return { requeueAfter: 1 };
  return done;
}

/** The EC2NodeClass status reconciler the operator runs under `--provider aws`. */
export function ec2NodeClassStatusController(
  ctx: EC2NodeClassStatusControllerContext,
): (name: string) => Promise<ReconcileResult> {
  return (name) => reconcileEC2NodeClass(ctx, name);
}
