/**
 * The account a test starts from: one VPC, subnets tagged for Karpenter discovery in three zones
 * (and one untagged), security groups, the SSM parameters the `al2023@latest` and
 * `bottlerocket@latest` aliases read, the node IAM role and the interruption queue (SQS). Written
 * through the real SDK clients against moto.
 */
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateTagsCommand,
  CreateVpcCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { CreateRoleCommand, type IAMClient } from '@aws-sdk/client-iam';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { PublicParameterPrefix } from './proxy.js';

/** What {@link seedAccount} created. */
export interface Seed {
  readonly region: string;
  readonly clusterName: string;
  readonly kubernetesVersion: string;
  readonly vpcId: string;
  /** The three tagged subnets, by zone (`<region>a`, `b`, `c`), most free IPs first. */
  readonly subnets: readonly { id: string; zone: string; cidr: string }[];
  /** A subnet in zone a without the discovery tag (selectors by tag must not match it). */
  readonly untaggedSubnetId: string;
  /** Tagged `karpenter.sh/discovery=<cluster>`. */
  readonly nodeSecurityGroupId: string;
  /** Tagged `kubernetes.io/cluster/<cluster>=owned` only. */
  readonly clusterSecurityGroupId: string;
  /** `KarpenterNodeRole-<cluster>`. */
  readonly roleName: string;
  /**
   * The SQS queue named for the cluster, with a 300 s message retention, as upstream's
   * CloudFormation creates it for `--interruption-queue`. Its URL names moto's own port: give
   * clients the emulator's `url` as their endpoint (the SDK then sends there, not to the URL).
   */
  readonly interruptionQueue: { readonly name: string; readonly url: string };
  /** Image IDs of the shipped AMI table (data/amis.json), by purpose. */
  readonly amis: {
    readonly al2023X86: string;
    readonly al2023X86Previous: string;
    readonly al2023X86Nvidia: string;
    readonly al2023Arm64: string;
    readonly bottlerocketX86: string;
    readonly bottlerocketArm64: string;
    readonly customSelf: string;
  };
}

/** Options of {@link seedAccount}. */
export interface SeedOptions {
  readonly region: string;
  readonly clusterName: string;
  /** `1.36` by default: the Kubernetes minor the SSM alias parameters are written for. */
  readonly kubernetesVersion?: string;
}

const amis = {
  al2023X86: 'ami-0a2023086400a001',
  al2023X86Previous: 'ami-0a2023086400a000',
  al2023X86Nvidia: 'ami-0a202308640a6001',
  al2023Arm64: 'ami-0a2023a640000001',
  bottlerocketX86: 'ami-0b0c0086400a0001',
  bottlerocketArm64: 'ami-0b0ca640000a0001',
  customSelf: 'ami-0c0c0c0c08640001',
} as const;

/** Writes {@link Seed}'s resources into a fresh moto through `clients` (pointed at moto itself). */
export async function seedAccount(
  clients: { ec2: EC2Client; ssm: SSMClient; iam: IAMClient; sqs: SQSClient },
  options: SeedOptions,
): Promise<Seed> {
  const { region, clusterName } = options;
  const k8s = options.kubernetesVersion ?? '1.36';
  const discovery = { Key: 'karpenter.sh/discovery', Value: clusterName };
  const vpc = await clients.ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }));
  const vpcId = vpc.Vpc?.VpcId ?? '';
  // Sizes differ so the order by free IPs is known: a /19, b /20, c /21.
  const layout = [
    { zone: `${region}a`, cidr: '10.0.0.0/19' },
    { zone: `${region}b`, cidr: '10.0.32.0/20' },
    { zone: `${region}c`, cidr: '10.0.48.0/21' },
  ];
  const subnets: { id: string; zone: string; cidr: string }[] = [];
  for (const s of layout) {
    const out = await clients.ec2.send(
      new CreateSubnetCommand({
        VpcId: vpcId,
        CidrBlock: s.cidr,
        AvailabilityZone: s.zone,
        TagSpecifications: [
          {
            ResourceType: 'subnet',
            Tags: [discovery, { Key: 'Name', Value: `${clusterName}-private-${s.zone}` }],
          },
        ],
      }),
    );
    subnets.push({ id: out.Subnet?.SubnetId ?? '', zone: s.zone, cidr: s.cidr });
  }
  const untagged = await clients.ec2.send(
    new CreateSubnetCommand({
      VpcId: vpcId,
      CidrBlock: '10.0.64.0/24',
      AvailabilityZone: `${region}a`,
    }),
  );
  const node = await clients.ec2.send(
    new CreateSecurityGroupCommand({
      GroupName: `${clusterName}-node`,
      Description: 'Karpenter nodes',
      VpcId: vpcId,
      TagSpecifications: [{ ResourceType: 'security-group', Tags: [discovery] }],
    }),
  );
  const cluster = await clients.ec2.send(
    new CreateSecurityGroupCommand({
      GroupName: `${clusterName}-cluster`,
      Description: 'EKS cluster security group',
      VpcId: vpcId,
      TagSpecifications: [
        {
          ResourceType: 'security-group',
          Tags: [{ Key: `kubernetes.io/cluster/${clusterName}`, Value: 'owned' }],
        },
      ],
    }),
  );
  await clients.ec2.send(
    new CreateTagsCommand({
      Resources: [amis.customSelf],
      Tags: [{ Key: 'team', Value: 'golden' }],
    }),
  );

  const al2023 = `/aws/service/eks/optimized-ami/${k8s}/amazon-linux-2023`;
  const bottlerocket = `/aws/service/bottlerocket/aws-k8s-${k8s}`;
  const parameters: Record<string, string> = {
    [`${al2023}/x86_64/standard/recommended/image_id`]: amis.al2023X86,
    [`${al2023}/x86_64/nvidia/recommended/image_id`]: amis.al2023X86Nvidia,
    [`${al2023}/arm64/standard/recommended/image_id`]: amis.al2023Arm64,
    [`${al2023}/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-${k8s}-v20261001/image_id`]:
      amis.al2023X86Previous,
    [`${bottlerocket}/x86_64/latest/image_id`]: amis.bottlerocketX86,
    [`${bottlerocket}/arm64/latest/image_id`]: amis.bottlerocketArm64,
  };
  for (const [name, value] of Object.entries(parameters))
    await putPublicParameter(clients.ssm, name, value);

  const roleName = `KarpenterNodeRole-${clusterName}`;
  await clients.iam.send(
    new CreateRoleCommand({
      RoleName: roleName,
      AssumeRolePolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'ec2.amazonaws.com' },
            Action: 'sts:AssumeRole',
          },
        ],
      }),
    }),
  );
  const queue = await clients.sqs.send(
    new CreateQueueCommand({
      QueueName: clusterName,
      Attributes: { MessageRetentionPeriod: '300' },
    }),
  );
  return {
    region,
    clusterName,
    kubernetesVersion: k8s,
    vpcId,
    subnets,
    untaggedSubnetId: untagged.Subnet?.SubnetId ?? '',
    nodeSecurityGroupId: node.GroupId ?? '',
    clusterSecurityGroupId: cluster.GroupId ?? '',
    roleName,
    interruptionQueue: { name: clusterName, url: queue.QueueUrl ?? '' },
    amis,
  };
}

/**
 * Puts a public parameter (a name under `/aws/service/eks/` or `/aws/service/bottlerocket/`)
 * where the emulator serves it from; `ssm` must point at moto itself.
 */
export async function putPublicParameter(
  ssm: SSMClient,
  name: string,
  value: string,
): Promise<void> {
  await ssm.send(
    new PutParameterCommand({
      Name: PublicParameterPrefix + name,
      Value: value,
      Type: 'String',
      Overwrite: true,
    }),
  );
}
