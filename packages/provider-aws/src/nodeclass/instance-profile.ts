/**
 * `status.instanceProfile` (upstream pkg/providers/instanceprofile): with `spec.role`, an
 * instance profile Karpenter creates and owns, named for the cluster and NodeClass, under the
 * path `/karpenter/<region>/<cluster>/<nodeclass uid>/`, tagged, holding exactly that role; with
 * `spec.instanceProfile`, that existing profile, checked to exist.
 */
import { createHash } from 'node:crypto';
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  paginateListInstanceProfiles,
  RemoveRoleFromInstanceProfileCommand,
  type IAMClient,
  type InstanceProfile,
} from '@aws-sdk/client-iam';
import { isAwsNotFound } from '../aws/errors.js';

/** Where the profile comes from. */
export interface InstanceProfileInput {
  readonly region: string;
  readonly clusterName: string;
  readonly nodeClassName: string;
  readonly nodeClassUID: string;
  readonly role?: string;
  readonly instanceProfile?: string;
}

/** The outcome: the profile name, or why there is none. */
export type InstanceProfileResolution =
  | { readonly ready: true; readonly name: string }
  | { readonly ready: false; readonly reason: string; readonly message: string };

/**
 * The name of the profile Karpenter creates for a role: `<cluster>_<decimal hash of region and
 * NodeClass name>` (upstream's form; the hash here is the first 8 bytes of SHA-256, so names
 * differ from upstream's for the same inputs).
 */
export function managedInstanceProfileName(
  input: Pick<InstanceProfileInput, 'region' | 'clusterName' | 'nodeClassName'>,
): string {
  const digest = createHash('sha256').update(`${input.region}${input.nodeClassName}`).digest();
  return `${input.clusterName}_${digest.readBigUInt64BE(0).toString()}`;
}

/** The IAM path of the profiles Karpenter owns for a NodeClass. */
export function managedInstanceProfilePath(
  input: Pick<InstanceProfileInput, 'region' | 'clusterName' | 'nodeClassUID'>,
): string {
  return `/karpenter/${input.region}/${input.clusterName}/${input.nodeClassUID}/`;
}

/** The IAM path prefix of every profile Karpenter owns in the cluster (all its NodeClasses). */
export function clusterInstanceProfilePath(
  input: Pick<InstanceProfileInput, 'region' | 'clusterName'>,
): string {
  return `/karpenter/${input.region}/${input.clusterName}/`;
}

/**
 * The instance profiles under an IAM path prefix (ListInstanceProfiles with `PathPrefix`, every
 * page). IAM lists no tags here, so the path is what says who owns a profile. Each returned
 * profile's path is checked against the prefix again: the callers delete what this returns, and
 * an endpoint that ignored the filter (the AWS emulator does) must not make them delete profiles
 * of another cluster or NodeClass.
 */
export async function listInstanceProfiles(
  iam: IAMClient,
  pathPrefix: string,
): Promise<InstanceProfile[]> {
  const out: InstanceProfile[] = [];
  for await (const page of paginateListInstanceProfiles(
    { client: iam },
    { PathPrefix: pathPrefix },
  ))
    for (const p of page.InstanceProfiles ?? [])
      if ((p.Path ?? '').startsWith(pathPrefix)) out.push(p);
  return out;
}

/**
 * Deletes an instance profile as upstream does: its roles removed first (IAM refuses to delete a
 * profile that holds one), then the profile. A profile or role already gone is not an error;
 * other SDK errors are raised.
 */
export async function deleteInstanceProfile(iam: IAMClient, name: string): Promise<void> {
  const profile = await getProfile(iam, name);
  if (!profile) return;
  try {
    for (const r of profile.Roles ?? [])
      await iam.send(
        new RemoveRoleFromInstanceProfileCommand({
          InstanceProfileName: name,
          RoleName: r.RoleName ?? '',
        }),
      );
    await iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: name }));
  } catch (err) {
    if (isAwsNotFound(err)) return;
    throw err;
  }
}

async function getProfile(iam: IAMClient, name: string): Promise<InstanceProfile | undefined> {
  try {
    return (await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })))
      .InstanceProfile;
  } catch (err) {
    if (isAwsNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Resolves (and for `role`, creates or repairs) the NodeClass's instance profile. Not ready with
 * `InstanceProfileNotFound` when a named `instanceProfile` does not exist; raises the SDK's error
 * for other failures (a missing role makes AddRoleToInstanceProfile fail with NoSuchEntity,
 * reported as not ready with `RoleNotFound`).
 */
export async function resolveInstanceProfile(
  iam: IAMClient,
  input: InstanceProfileInput,
): Promise<InstanceProfileResolution> {
  if (input.instanceProfile) {
    const found = await getProfile(iam, input.instanceProfile);
    return found
      ? { ready: true, name: input.instanceProfile }
      : {
          ready: false,
          reason: 'InstanceProfileNotFound',
          message: `instance profile ${input.instanceProfile} does not exist`,
        };
  }
  const role = (input.role ?? '').split('/').pop() ?? '';
  const name = managedInstanceProfileName(input);
  let profile = await getProfile(iam, name);
  if (!profile) {
    await iam.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: name,
        Path: managedInstanceProfilePath(input),
        Tags: [
          { Key: `kubernetes.io/cluster/${input.clusterName}`, Value: 'owned' },
          { Key: 'eks:eks-cluster-name', Value: input.clusterName },
          { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: input.nodeClassName },
          { Key: 'topology.kubernetes.io/region', Value: input.region },
        ],
      }),
    );
    profile = { Roles: [] } as unknown as InstanceProfile;
  }
  const roles = (profile.Roles ?? []).map((r) => r.RoleName ?? '');
  if (roles.length === 1 && roles[0] === role) return { ready: true, name };
  for (const r of roles)
    await iam.send(
      new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: r }),
    );
  try {
    await iam.send(
      new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: role }),
    );
  } catch (err) {
    if (isAwsNotFound(err))
      return { ready: false, reason: 'RoleNotFound', message: `role ${role} does not exist` };
    throw err;
  }
  return { ready: true, name };
}
