/**
 * EC2NodeClass termination, after upstream `aws/karpenter-provider-aws`'s nodeclass controller
 * (`finalize`, v1.14): for an EC2NodeClass being deleted that still carries the
 * `karpenter.k8s.aws/termination` finalizer,
 * 1. wait while any NodeClaim references it (event `WaitingOnNodeClaimTermination` naming them,
 *    fired again every 10 minutes while it waits; a NodeClaim's deletion wakes it sooner);
 * 2. with `spec.role`, delete the instance profiles Karpenter created for it (those under
 *    `/karpenter/<region>/<cluster>/<nodeclass uid>/`); a user-given `spec.instanceProfile` is
 *    never touched;
 * 3. delete every launch template tagged `eks:eks-cluster-name=<cluster>` and
 *    `karpenter.k8s.aws/ec2nodeclass=<name>`;
 * 4. remove the finalizer (an update with the read resourceVersion, as upstream: a merge patch
 *    would replace the whole list and race other finalizers).
 * A failed AWS call raises before the finalizer goes, so the work queue retries the whole pass.
 */
import type { KubeClient, NodeClassObject, ReconcileResult } from '@karpenter-ts/controllers';
import { isConflict, isNotFound } from '@karpenter-ts/controllers';
import type { AwsClients } from '../../../aws/clients.js';
import {
  AwsGroup,
  EC2NodeClassKind,
  EC2NodeClassTerminationFinalizer,
} from '../../../ec2nodeclass.js';
import {
  deleteInstanceProfile,
  listInstanceProfiles,
  managedInstanceProfilePath,
} from '../../../nodeclass/instance-profile.js';
import { clusterLaunchTemplates, deleteLaunchTemplate } from '../../../launch/launch-templates.js';

/** Seconds between the waiting events (upstream's requeue while NodeClaims remain). */
export const NodeClassTerminationWaitSeconds = 600;

/** What {@link finalizeEC2NodeClass} needs. */
export interface EC2NodeClassTerminationContext {
  readonly client: KubeClient;
  readonly clients: Pick<AwsClients, 'ec2' | 'iam'>;
  readonly region: string;
  readonly clusterName: string;
}

/**
 * Finalizes the named EC2NodeClass when it is being deleted and holds the finalizer; `{}` for a
 * missing, live or already finalized one. Returns `requeueAfter` 600 s while NodeClaims
 * reference it, 1 s after a write conflict. Raises AWS and API errors (the queue retries).
 */
export async function finalizeEC2NodeClass(
  ctx: EC2NodeClassTerminationContext,
  name: string,
): Promise<ReconcileResult> {
  const current = await ctx.client.get('NodeClass', {
    name,
    nodeClass: { group: AwsGroup, kind: EC2NodeClassKind },
  });
  if (current === undefined || current.kind !== EC2NodeClassKind) return {};
  if (current.metadata.deletionTimestamp === undefined) return {};
  const finalizers = current.metadata.finalizers ?? [];
  if (!finalizers.includes(EC2NodeClassTerminationFinalizer)) return {};

  const claims = (await ctx.client.list('NodeClaim')).filter((c) => {
    const ref = c.spec.nodeClassRef;
    return ref.name === name && ref.kind === EC2NodeClassKind && ref.group === AwsGroup;
  });
  if (claims.length > 0) {
    const names = claims.map((c) => c.metadata.name ?? '').sort();
    ctx.client.recordEvent({
      involved: {
        kind: EC2NodeClassKind,
        name,
        ...(current.metadata.uid !== undefined ? { uid: current.metadata.uid } : {}),
      },
      type: 'Normal',
      reason: 'WaitingOnNodeClaimTermination',
      message: `Waiting on NodeClaim termination for ${names.join(', ')}`,
    });
    return { requeueAfter: NodeClassTerminationWaitSeconds };
  }

  const spec = current.spec ?? {};
  if (typeof spec['role'] === 'string' && spec['role'] !== '') {
    const path = managedInstanceProfilePath({
      region: ctx.region,
      clusterName: ctx.clusterName,
      nodeClassUID: current.metadata.uid ?? '',
    });
    for (const profile of await listInstanceProfiles(ctx.clients.iam, path))
      await deleteInstanceProfile(ctx.clients.iam, profile.InstanceProfileName ?? '');
  }
  for (const lt of await clusterLaunchTemplates(ctx.clients.ec2, ctx.clusterName, name))
    await deleteLaunchTemplate(ctx.clients.ec2, lt.LaunchTemplateName ?? '');

  const next: NodeClassObject = structuredClone(current);
  next.metadata.finalizers = finalizers.filter((f) => f !== EC2NodeClassTerminationFinalizer);
  try {
    await ctx.client.update('NodeClass', next);
  } catch (err) {
    if (isNotFound(err)) return {};
    if (isConflict(err)) return { requeueAfter: 1 };
    throw err;
  }
  return {};
}

/** The EC2NodeClass termination reconciler the operator runs under `--provider aws`. */
export function ec2NodeClassTerminationController(
  ctx: EC2NodeClassTerminationContext,
): (name: string) => Promise<ReconcileResult> {
  return (name) => finalizeEC2NodeClass(ctx, name);
}
