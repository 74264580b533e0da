// The EC2NodeClass status resolution through the real SDK clients against the AWS emulator
// (moto behind tools/aws-emulator): what each selector finds, the conditions, and the errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteSubnetCommand, DeregisterImageCommand } from '@aws-sdk/client-ec2';
import { GetInstanceProfileCommand } from '@aws-sdk/client-iam';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import {
  createAwsClients,
  managedInstanceProfileName,
  preferImage,
  resolveEC2NodeClassStatus,
  type AwsClients,
  type EC2NodeClass,
  type EC2NodeClassSpec,
} from '../../src/index.js';

let aws: AwsEmulator;
let clients: AwsClients;
beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'status' });
  clients = createAwsClients({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });
}, 240_000);
afterAll(async () => aws?.stop());

function nodeClass(spec: Partial<EC2NodeClassSpec> = {}, name = 'default'): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name, uid: `uid-${name}`, generation: 1 },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'status' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'status' } }],
      role: 'KarpenterNodeRole-status',
      ...spec,
    },
  };
}

const resolve = (nc: EC2NodeClass) =>
  resolveEC2NodeClassStatus(
    { clients, region: aws.region, clusterName: 'status', kubernetesVersion: '1.36' },
    nc,
  );

const condition = (r: Awaited<ReturnType<typeof resolve>>, type: string) =>
  r.conditions.find((c) => c.type === type);

describe('EC2NodeClass status', () => {
  it('resolves the default NodeClass: subnets by free IPs, security groups, AL2023 AMIs per arch and variant, a created instance profile; Ready', async () => {
    const r = await resolve(nodeClass());
    expect(r.status.subnets?.map((s) => s.zone)).toEqual([
      'us-west-2a',
      'us-west-2b',
      'us-west-2c',
    ]);
    expect(r.status.subnets?.[0]).toMatchObject({
      id: aws.seed.subnets[0]!.id,
      zoneID: expect.stringMatching(/^usw2-az/),
    });
    expect(r.status.securityGroups).toEqual([
      { id: aws.seed.nodeSecurityGroupId, name: 'status-node' },
    ]);
    expect(r.status.amis?.map((a) => a.id).sort()).toEqual(
      [aws.seed.amis.al2023X86, aws.seed.amis.al2023X86Nvidia, aws.seed.amis.al2023Arm64].sort(),
    );
    const nvidia = r.status.amis?.find((a) => a.id === aws.seed.amis.al2023X86Nvidia);
    expect(nvidia?.requirements).toEqual([
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' },
    ]);
    expect(r.status.instanceProfile).toBe(
      managedInstanceProfileName({
        region: aws.region,
        clusterName: 'status',
        nodeClassName: 'default',
      }),
    );
    const profile = await aws.clients.iam.send(
      new GetInstanceProfileCommand({ InstanceProfileName: r.status.instanceProfile! }),
    );
    expect(profile.InstanceProfile?.Path).toBe('/karpenter/us-west-2/status/uid-default/');
    expect(profile.InstanceProfile?.Roles?.map((x) => x.RoleName)).toEqual([
      'KarpenterNodeRole-status',
    ]);
    expect(r.conditions.map((c) => [c.type, c.status])).toEqual([
      ['SubnetsReady', 'True'],
      ['SecurityGroupsReady', 'True'],
      ['AMIsReady', 'True'],
      ['InstanceProfileReady', 'True'],
      ['CapacityReservationsReady', 'True'],
      ['ValidationSucceeded', 'True'],
      ['Ready', 'True'],
    ]);
    expect(r.requeueAfterSeconds).toBe(60);
    // A second pass reuses the profile (no duplicate, same role).
    expect((await resolve(nodeClass())).status.instanceProfile).toBe(r.status.instanceProfile);
  });

  it('selects by id, by security group name, by AMI name with owner self, by tag value *, and a pinned alias version', async () => {
    const r = await resolve(
      nodeClass({
        subnetSelectorTerms: [{ id: aws.seed.untaggedSubnetId }],
        securityGroupSelectorTerms: [
          { name: 'status-cluster' },
          { tags: { 'karpenter.sh/discovery': '*' } },
        ],
        amiSelectorTerms: [{ name: 'team-golden-*', owner: 'self' }],
        amiFamily: 'AL2023',
      }),
    );
    expect(r.status.subnets?.map((s) => s.id)).toEqual([aws.seed.untaggedSubnetId]);
    expect(r.status.securityGroups?.map((g) => g.id).sort()).toEqual(
      [aws.seed.clusterSecurityGroupId, aws.seed.nodeSecurityGroupId].sort(),
    );
    expect(r.status.amis).toEqual([
      {
        id: aws.seed.amis.customSelf,
        name: 'team-golden-al2023-x86_64-2026.11',
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    ]);
    const pinned = await resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20261001' }] }));
    expect(pinned.status.amis?.map((a) => a.id)).toEqual([aws.seed.amis.al2023X86Previous]);
    const tagged = await resolve(
      nodeClass({ amiSelectorTerms: [{ tags: { team: 'golden' } }], amiFamily: 'Custom' }),
    );
    expect(tagged.status.amis?.map((a) => a.id)).toEqual([aws.seed.amis.customSelf]);
  });

  it('keeps the newest image of a requirement set', async () => {
    const r = await resolve(
      nodeClass({
        amiSelectorTerms: [
          { name: 'amazon-eks-node-al2023-x86_64-standard-*', owner: '602401143452' },
        ],
        amiFamily: 'AL2023',
      }),
    );
    expect(r.status.amis?.map((a) => a.id)).toEqual([aws.seed.amis.al2023X86]);
  });

  it('prefers a non-deprecated image over a newer deprecated one, then the newer, then the larger name (moto keeps no deprecation time)', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    const newerDeprecated = {
      ImageId: 'ami-1',
      Name: 'b',
      CreationDate: '2026-11-15T00:00:00Z',
      DeprecationTime: '2026-11-30T00:00:00Z',
    };
    const older = { ImageId: 'ami-2', Name: 'a', CreationDate: '2026-10-01T00:00:00Z' };
    expect(preferImage(older, newerDeprecated, now)).toBe(true);
    expect(preferImage(newerDeprecated, older, now)).toBe(false);
    expect(
      preferImage({ ...newerDeprecated, DeprecationTime: '2027-01-01T00:00:00Z' }, older, now),
    ).toBe(true);
    expect(preferImage({ ...older, Name: 'z' }, { ...older, Name: 'y' }, now)).toBe(true);
  });

  it('is Ready=False with the reason when a selector matches nothing, and requeues AMIs after a minute', async () => {
    const r = await resolve(
      nodeClass({
        subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'nobody' } }],
        amiSelectorTerms: [{ name: 'no-such-image-*' }],
        amiFamily: 'AL2023',
      }),
    );
    expect(condition(r, 'SubnetsReady')).toMatchObject({
      status: 'False',
      reason: 'SubnetsNotFound',
    });
    expect(condition(r, 'AMIsReady')).toMatchObject({ status: 'False', reason: 'AMINotFound' });
    expect(condition(r, 'ValidationSucceeded')).toMatchObject({
      status: 'False',
      reason: 'DependenciesNotReady',
    });
    expect(condition(r, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SubnetsNotFound',
      message: 'SubnetSelector did not match any Subnets',
    });
    expect(r.status.subnets).toEqual([]);
    expect(r.requeueAfterSeconds).toBe(60);
  });

  it('refuses AL2 on Kubernetes 1.36, a missing named instance profile, a missing role and restricted tags', async () => {
    const al2 = await resolve(nodeClass({ amiSelectorTerms: [{ alias: 'al2@latest' }] }));
    expect(condition(al2, 'AMIsReady')).toMatchObject({
      status: 'False',
      reason: 'AMINotFound',
      message: expect.stringContaining('AL2 is not supported from Kubernetes 1.33'),
    });
    const profile = await resolve(nodeClass({ role: undefined, instanceProfile: 'nope' }));
    expect(condition(profile, 'InstanceProfileReady')).toMatchObject({
      status: 'False',
      reason: 'InstanceProfileNotFound',
    });
    const role = await resolve(nodeClass({ role: 'NoSuchRole' }, 'norole'));
    expect(condition(role, 'InstanceProfileReady')).toMatchObject({
      status: 'False',
      reason: 'RoleNotFound',
    });
    const tags = await resolve(nodeClass({ tags: { 'karpenter.sh/nodepool': 'x' } }));
    expect(condition(tags, 'ValidationSucceeded')).toMatchObject({
      status: 'False',
      reason: 'TagValidationFailed',
    });
    expect(condition(tags, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'TagValidationFailed',
    });
  });

  it('reports an unauthorized call on its condition, keeps the previous value, and raises throttling for the work queue', async () => {
    const first = await resolve(nodeClass());
    const withStatus = { ...nodeClass(), status: { ...first.status } };
    aws.faults.error(
      'ec2',
      'DescribeSubnets',
      'UnauthorizedOperation',
      'You are not authorized to perform this operation.',
      403,
      1,
    );
    const r = await resolve(withStatus);
    expect(condition(r, 'SubnetsReady')).toMatchObject({
      status: 'False',
      reason: 'Unauthorized',
      message: expect.stringContaining('DescribeSubnets: UnauthorizedOperation'),
    });
    expect(r.status.subnets).toEqual(first.status.subnets);
    aws.faults.error(
      'ec2',
      'DescribeSecurityGroups',
      'RequestLimitExceeded',
      'Request limit exceeded.',
      503,
      1,
    );
    await expect(resolve(withStatus)).rejects.toMatchObject({ name: 'RequestLimitExceeded' });
  });

  it('drops a subnet that vanished at the next pass', async () => {
    const before = await resolve(
      nodeClass({
        subnetSelectorTerms: [
          { tags: { 'karpenter.sh/discovery': 'status' } },
          { id: aws.seed.untaggedSubnetId },
        ],
      }),
    );
    expect(before.status.subnets).toHaveLength(4);
    await aws.clients.ec2.send(new DeleteSubnetCommand({ SubnetId: aws.seed.untaggedSubnetId }));
    const after = await resolve(
      nodeClass({
        subnetSelectorTerms: [
          { tags: { 'karpenter.sh/discovery': 'status' } },
          { id: aws.seed.untaggedSubnetId },
        ],
      }),
    );
    expect(after.status.subnets?.map((s) => s.id)).not.toContain(aws.seed.untaggedSubnetId);
    expect(after.status.subnets).toHaveLength(3);
  });

  it('drops an AMI that was deregistered at the next pass, and is AMIsReady=False once none is left', async () => {
    const pinned = nodeClass({
      amiSelectorTerms: [{ id: aws.seed.amis.customSelf }],
      amiFamily: 'Custom',
    });
    expect((await resolve(pinned)).status.amis?.map((a) => a.id)).toEqual([
      aws.seed.amis.customSelf,
    ]);
    await aws.clients.ec2.send(new DeregisterImageCommand({ ImageId: aws.seed.amis.customSelf }));
    const after = await resolve(pinned);
    expect(after.status.amis ?? []).toEqual([]);
    expect(condition(after, 'AMIsReady')).toMatchObject({ status: 'False', reason: 'AMINotFound' });
    expect(condition(after, 'Ready')).toMatchObject({ status: 'False' });
  });
});
