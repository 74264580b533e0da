/**
 * Instance profile garbage collection, after upstream `aws/karpenter-provider-aws`'s instance
 * profile GC controller: a singleton that every 30 minutes lists the profiles Karpenter created
 * in this cluster (IAM path `/karpenter/<region>/<cluster>/`) and deletes each one that no
 * EC2NodeClass's `status.instanceProfile` and no NodeClaim's
 * `karpenter.k8s.aws/instance-profile-name` annotation names: the profiles of EC2NodeClasses
 * deleted while no controller ran, or switched from `role` to `instanceProfile`.
 *
 * Upstream protects a profile it just replaced for 1 hour, so launches already using it can
 * finish. This provider repairs a profile's role in place rather than replacing it, so the same
 * hour is kept as an age guard: a profile created less than 1 hour ago (IAM `CreateDate`) is left
 * alone, which also covers one the status controller has created but not yet written to status.
 */
import type { Clock, KubeClient, PeriodicTask } from '@karpenter-ts/controllers';
import type { AwsClients } from '../../../aws/clients.js';
import { EC2NodeClassKind } from '../../../ec2nodeclass.js';
import {
  clusterInstanceProfilePath,
  deleteInstanceProfile,
  listInstanceProfiles,
} from '../../../nodeclass/instance-profile.js';

/** Seconds between passes (upstream's period). */
export const InstanceProfileGarbageCollectionSeconds = 30 * 60;
/** Seconds a newly created profile is protected from collection (upstream's protection). */
export const InstanceProfileProtectionSeconds = 60 * 60;
/** The NodeClaim annotation naming the profile its instance was launched with (upstream's key). */
export const InstanceProfileNameAnnotation = 'karpenter.k8s.aws/instance-profile-name';

/** What {@link garbageCollectInstanceProfiles} needs. */
export interface InstanceProfileGarbageCollectionContext {
  readonly client: KubeClient;
  readonly clients: Pick<AwsClients, 'iam'>;
  readonly clock: Clock;
  readonly region: string;
  readonly clusterName: string;
}

/**
 * One pass: deletes the cluster's unreferenced profiles older than the protection and resolves
 * with their names. Raises IAM and API errors (the next pass retries); profiles deleted before
 * the error stay deleted.
 */
export async function garbageCollectInstanceProfiles(
  ctx: InstanceProfileGarbageCollectionContext,
): Promise<string[]> {
  const profiles = await listInstanceProfiles(ctx.clients.iam, clusterInstanceProfilePath(ctx));
  if (profiles.length === 0) return [];
  const referenced = new Set<string>();
  for (const nc of await ctx.client.list('NodeClass')) {
    if (nc.kind !== EC2NodeClassKind) continue;
    const name = nc.status?.['instanceProfile'];
    if (typeof name === 'string' && name !== '') referenced.add(name);
  }
  for (const claim of await ctx.client.list('NodeClaim')) {
    const name = claim.metadata.annotations?.[InstanceProfileNameAnnotation];
    if (name) referenced.add(name);
  }
  const cutoff = ctx.clock.now() - InstanceProfileProtectionSeconds * 1000;
  const deleted: string[] = [];
  for (const profile of profiles) {
    const name = profile.InstanceProfileName ?? '';
    if (name === '' || referenced.has(name)) continue;
    if ((profile.CreateDate?.getTime() ?? Number.POSITIVE_INFINITY) > cutoff) continue;
    await deleteInstanceProfile(ctx.clients.iam, name);
    deleted.push(name);
  }
  return deleted;
}

/** The periodic task; a run resolves with the names it deleted. */
export function awsInstanceProfileGarbageCollectionTask(
  ctx: InstanceProfileGarbageCollectionContext,
): PeriodicTask {
  return {
    name: 'aws.instanceprofile.garbagecollection',
    intervalSeconds: InstanceProfileGarbageCollectionSeconds,
    run: () => garbageCollectInstanceProfiles(ctx),
  };
}
