// The emulator through the real SDK clients: what it seeds, how CreateFleet instant chooses and
// fails, the faults, spot prices and the EKS public SSM parameters. One emulator for the file
// (about 2 s to start with moto cached).
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeCapacityReservationsCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSpotPriceHistoryCommand,
  DescribeSubnetsCommand,
  EC2Client,
  TerminateInstancesCommand,
  type CreateFleetCommandInput,
  type DescribeCapacityReservationsCommandInput,
} from '@aws-sdk/client-ec2';
import { GetParameterCommand, GetParametersCommand } from '@aws-sdk/client-ssm';
import { CreateInstanceProfileCommand, GetRoleCommand } from '@aws-sdk/client-iam';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { startAwsEmulator, type AwsEmulator } from '../src/index.js';

let aws: AwsEmulator;
let profileName: string;
beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'emu' });
  profileName = 'emu-profile';
  await aws.clients.iam.send(
    new CreateInstanceProfileCommand({ InstanceProfileName: profileName }),
  );
  await aws.clients.ec2.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'karpenter.k8s.aws/test',
      LaunchTemplateData: {
        ImageId: aws.seed.amis.al2023X86,
        SecurityGroupIds: [aws.seed.nodeSecurityGroupId],
        IamInstanceProfile: { Name: profileName },
        UserData: Buffer.from('#!/bin/bash\necho hello\n').toString('base64'),
        MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 1 },
      },
    }),
  );
}, 240_000);
afterAll(async () => aws?.stop());

function fleet(
  capacityType: 'on-demand' | 'spot',
  overrides: { type: string; zone: 'a' | 'b' | 'c'; price: number }[],
): CreateFleetCommandInput {
  const subnet = (z: string) => aws.seed.subnets.find((s) => s.zone.endsWith(z))?.id;
  return {
    Type: 'instant',
    TargetCapacitySpecification: {
      TotalTargetCapacity: 1,
      DefaultTargetCapacityType: capacityType,
    },
    ...(capacityType === 'spot'
      ? { SpotOptions: { AllocationStrategy: 'price-capacity-optimized' } }
      : { OnDemandOptions: { AllocationStrategy: 'lowest-price' } }),
    LaunchTemplateConfigs: [
      {
        LaunchTemplateSpecification: {
          LaunchTemplateName: 'karpenter.k8s.aws/test',
          Version: '$Latest',
        },
        Overrides: overrides.map((o) => ({
          InstanceType: o.type as never,
          SubnetId: subnet(o.zone),
          AvailabilityZone: `us-west-2${o.zone}`,
          Priority: o.price,
        })),
      },
    ],
    TagSpecifications: [
      { ResourceType: 'instance', Tags: [{ Key: 'karpenter.sh/nodepool', Value: 'default' }] },
      { ResourceType: 'fleet', Tags: [{ Key: 'karpenter.sh/nodepool', Value: 'default' }] },
    ],
  };
}

async function instance(id: string) {
  const out = await aws.clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return out.Reservations?.[0]?.Instances?.[0];
}

describe('seed', () => {
  it('has three subnets tagged for discovery in three zones, and one untagged', async () => {
    const tagged = await aws.clients.ec2.send(
      new DescribeSubnetsCommand({
        Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['emu'] }],
      }),
    );
    expect(tagged.Subnets?.map((s) => s.AvailabilityZone).sort()).toEqual([
      'us-west-2a',
      'us-west-2b',
      'us-west-2c',
    ]);
    const free = Object.fromEntries(
      tagged.Subnets!.map((s) => [s.AvailabilityZone, s.AvailableIpAddressCount]),
    );
    expect(free['us-west-2a']).toBeGreaterThan(free['us-west-2b']!);
    expect(free['us-west-2b']).toBeGreaterThan(free['us-west-2c']!);
    const all = await aws.clients.ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [aws.seed.vpcId] }] }),
    );
    expect(all.Subnets?.map((s) => s.SubnetId)).toContain(aws.seed.untaggedSubnetId);
  });

  it('has security groups by tag and by name, the node role, and the shipped AMIs only', async () => {
    const byTag = await aws.clients.ec2.send(
      new DescribeSecurityGroupsCommand({
        Filters: [{ Name: 'tag:karpenter.sh/discovery', Values: ['emu'] }],
      }),
    );
    expect(byTag.SecurityGroups?.map((g) => g.GroupId)).toEqual([aws.seed.nodeSecurityGroupId]);
    const byName = await aws.clients.ec2.send(
      new DescribeSecurityGroupsCommand({
        Filters: [{ Name: 'group-name', Values: ['emu-cluster'] }],
      }),
    );
    expect(byName.SecurityGroups?.map((g) => g.GroupId)).toEqual([aws.seed.clusterSecurityGroupId]);
    const role = await aws.clients.iam.send(
      new GetRoleCommand({ RoleName: 'KarpenterNodeRole-emu' }),
    );
    expect(role.Role?.RoleName).toBe('KarpenterNodeRole-emu');
    const images = await aws.clients.ec2.send(
      new DescribeImagesCommand({
        Filters: [{ Name: 'name', Values: ['amazon-eks-node-al2023-*'] }],
      }),
    );
    expect(images.Images?.map((i) => i.ImageId).sort()).toEqual(
      [
        aws.seed.amis.al2023Arm64,
        aws.seed.amis.al2023X86,
        aws.seed.amis.al2023X86Nvidia,
        aws.seed.amis.al2023X86Previous,
      ].sort(),
    );
  });

  it('serves the AL2023 alias parameters under their public names; unknown ones are ParameterNotFound', async () => {
    const name =
      '/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/x86_64/standard/recommended/image_id';
    const out = await aws.clients.ssm.send(new GetParameterCommand({ Name: name }));
    expect(out.Parameter).toMatchObject({ Name: name, Value: aws.seed.amis.al2023X86 });
    const many = await aws.clients.ssm.send(
      new GetParametersCommand({
        Names: [
          name,
          '/aws/service/eks/optimized-ami/1.99/amazon-linux-2023/x86_64/standard/recommended/image_id',
        ],
      }),
    );
    expect(many.Parameters?.map((p) => p.Name)).toEqual([name]);
    expect(many.InvalidParameters).toEqual([
      '/aws/service/eks/optimized-ami/1.99/amazon-linux-2023/x86_64/standard/recommended/image_id',
    ]);
    await expect(
      aws.clients.ssm.send(
        new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.99/nope' }),
      ),
    ).rejects.toMatchObject({ name: 'ParameterNotFound' });
  });
});

describe('interruption queue', () => {
  it('is seeded under the cluster name with 300 s retention and carries messages through the layer', async () => {
    const { sqs } = aws.clients;
    const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'emu' }))).QueueUrl;
    expect(url).toBe(aws.seed.interruptionQueue.url);
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['MessageRetentionPeriod'] }),
    );
    expect(attrs.Attributes?.MessageRetentionPeriod).toBe('300');
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"version":"0"}' }));
    const out = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }),
    );
    expect(out.Messages?.map((m) => m.Body)).toEqual(['{"version":"0"}']);
    expect(aws.requests.map((r) => `${r.service}:${r.action}`)).toContain('sqs:ReceiveMessage');
  });
});

describe('CreateFleet instant', () => {
  it('on-demand lowest-price launches the cheapest override with the template security groups, profile and metadata options', async () => {
    const out = await aws.clients.ec2.send(
      new CreateFleetCommand(
        fleet('on-demand', [
          { type: 'm5.large', zone: 'a', price: 0.096 },
          { type: 'c5.large', zone: 'b', price: 0.085 },
        ]),
      ),
    );
    expect(out.Errors).toEqual([]);
    expect(out.Instances).toHaveLength(1);
    expect(out.Instances?.[0]).toMatchObject({ InstanceType: 'c5.large', Lifecycle: 'on-demand' });
    const i = await instance(out.Instances![0]!.InstanceIds![0]!);
    expect(i?.Placement?.AvailabilityZone).toBe('us-west-2b');
    expect(i?.SecurityGroups?.map((g) => g.GroupId)).toEqual([aws.seed.nodeSecurityGroupId]);
    expect(i?.IamInstanceProfile?.Arn).toContain(`instance-profile/${profileName}`);
    expect(i?.MetadataOptions?.HttpTokens).toBe('required');
    expect(i?.Tags).toContainEqual({ Key: 'karpenter.sh/nodepool', Value: 'default' });
    expect(aws.launches.at(-1)).toMatchObject({
      instanceType: 'c5.large',
      zone: 'us-west-2b',
      userData: '#!/bin/bash\necho hello\n',
    });
  });

  it('spot price-capacity-optimized launches the lowest spot price, and the instance is a spot instance', async () => {
    aws.spotPrices.set([
      { instanceType: 'm5.large', zone: 'us-west-2a', price: 0.03 },
      { instanceType: 'c5.large', zone: 'us-west-2b', price: 0.04 },
    ]);
    const out = await aws.clients.ec2.send(
      new CreateFleetCommand(
        fleet('spot', [
          { type: 'c5.large', zone: 'b', price: 0.04 },
          { type: 'm5.large', zone: 'a', price: 0.03 },
        ]),
      ),
    );
    expect(out.Instances?.[0]).toMatchObject({ InstanceType: 'm5.large', Lifecycle: 'spot' });
    expect((await instance(out.Instances![0]!.InstanceIds![0]!))?.InstanceLifecycle).toBe('spot');
  });

  it('reports a capacity fault per override and falls through to the next, as EC2 does', async () => {
    aws.faults.capacity(
      { instanceType: 'c5.large', zone: 'us-west-2b', capacityType: 'on-demand' },
      { times: 1 },
    );
    const out = await aws.clients.ec2.send(
      new CreateFleetCommand(
        fleet('on-demand', [
          { type: 'c5.large', zone: 'b', price: 0.085 },
          { type: 'm5.large', zone: 'c', price: 0.096 },
        ]),
      ),
    );
    expect(out.Errors).toHaveLength(1);
    expect(out.Errors?.[0]).toMatchObject({
      ErrorCode: 'InsufficientInstanceCapacity',
      Lifecycle: 'on-demand',
      LaunchTemplateAndOverrides: {
        Overrides: { InstanceType: 'c5.large', AvailabilityZone: 'us-west-2b' },
      },
    });
    expect(out.Errors?.[0]?.ErrorMessage).toContain('sufficient c5.large capacity');
    expect(out.Instances?.map((i) => i.InstanceType)).toEqual(['m5.large']);
  });

  it('answers with errors and no instance when every override is out of capacity', async () => {
    aws.faults.capacity(
      { capacityType: 'spot' },
      { code: 'MaxSpotInstanceCountExceeded', times: 2 },
    );
    const out = await aws.clients.ec2.send(
      new CreateFleetCommand(
        fleet('spot', [
          { type: 'c5.large', zone: 'b', price: 0.04 },
          { type: 'm5.large', zone: 'a', price: 0.03 },
        ]),
      ),
    );
    expect(out.Instances ?? []).toEqual([]);
    expect(out.Errors?.map((e) => e.ErrorCode)).toEqual([
      'MaxSpotInstanceCountExceeded',
      'MaxSpotInstanceCountExceeded',
    ]);
  });

  it('reports a missing launch template as an override error', async () => {
    const input = fleet('on-demand', [{ type: 'm5.large', zone: 'a', price: 0.1 }]);
    input.LaunchTemplateConfigs![0]!.LaunchTemplateSpecification!.LaunchTemplateName =
      'karpenter.k8s.aws/gone';
    const out = await aws.clients.ec2.send(new CreateFleetCommand(input));
    expect(out.Instances ?? []).toEqual([]);
    expect(out.Errors?.[0]?.ErrorCode).toBe('InvalidLaunchTemplateName.NotFoundException');
  });
});

describe('connections', () => {
  // The SDK keeps idle sockets open without limit; a server that closes one after Node's default
  // 5 s races the client's next request on it (ECONNRESET, which the tests' single-attempt
  // clients do not retry).
  it('keeps an idle keep-alive connection open past 5 s, so a client reuses it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let connections = 0;
    const open = agent.createConnection.bind(agent);
    agent.createConnection = (...args: Parameters<Agent['createConnection']>) => {
      connections += 1;
      return open(...args);
    };
    const client = new EC2Client({ ...aws.clientConfig(), requestHandler: { httpAgent: agent } });
    await client.send(new DescribeSubnetsCommand({}));
    await new Promise((r) => setTimeout(r, 6000));
    await client.send(new DescribeSubnetsCommand({}));
    expect(connections).toBe(1);
    agent.destroy();
  }, 20_000);
});

describe('capacity reservations', () => {
  const reservations = [
    {
      id: 'cr-0a1',
      instanceType: 'm5.large',
      zone: 'us-west-2a',
      totalInstanceCount: 2,
      availableInstanceCount: 1,
      tags: { team: 'ml' },
    },
    {
      id: 'cr-0b2',
      instanceType: 'p5.48xlarge',
      zone: 'us-west-2b',
      totalInstanceCount: 1,
      reservationType: 'capacity-block' as const,
      instanceMatchCriteria: 'targeted' as const,
      endDate: new Date('2030-01-01T00:00:00Z'),
      ownerId: '210987654321',
    },
    {
      id: 'cr-0c3',
      instanceType: 'm5.large',
      zone: 'us-west-2c',
      totalInstanceCount: 1,
      state: 'expired' as const,
      instanceMatchCriteria: 'open' as const,
      tags: { team: 'ml' },
    },
  ];
  const describeIds = async (input: DescribeCapacityReservationsCommandInput) =>
    (
      await aws.clients.ec2.send(new DescribeCapacityReservationsCommand(input))
    ).CapacityReservations?.map((r) => r.CapacityReservationId);

  it('answers DescribeCapacityReservations from its store, by ID and by filters', async () => {
    aws.capacityReservations.set(reservations);
    const all = await aws.clients.ec2.send(new DescribeCapacityReservationsCommand({}));
    expect(
      all.CapacityReservations?.find((r) => r.CapacityReservationId === 'cr-0b2'),
    ).toMatchObject({
      InstanceType: 'p5.48xlarge',
      AvailabilityZone: 'us-west-2b',
      OwnerId: '210987654321',
      TotalInstanceCount: 1,
      AvailableInstanceCount: 1,
      State: 'active',
      ReservationType: 'capacity-block',
      InstanceMatchCriteria: 'targeted',
      EndDate: new Date('2030-01-01T00:00:00Z'),
    });
    expect(
      all.CapacityReservations?.find((r) => r.CapacityReservationId === 'cr-0a1'),
    ).toMatchObject({
      AvailableInstanceCount: 1,
      OwnerId: '123456789012',
      Tags: [{ Key: 'team', Value: 'ml' }],
    });
    expect(await describeIds({ CapacityReservationIds: ['cr-0a1'] })).toEqual(['cr-0a1']);
    expect(
      await describeIds({
        Filters: [
          { Name: 'tag:team', Values: ['ml'] },
          { Name: 'state', Values: ['active'] },
        ],
      }),
    ).toEqual(['cr-0a1']);
    expect(
      await describeIds({ Filters: [{ Name: 'instance-match-criteria', Values: ['open'] }] }),
    ).toEqual(['cr-0c3']);
    expect(
      await describeIds({ Filters: [{ Name: 'owner-id', Values: ['210987654321'] }] }),
    ).toEqual(['cr-0b2']);
    expect(await describeIds({ Filters: [{ Name: 'tag-key', Values: ['nobody'] }] })).toEqual([]);
    await expect(
      aws.clients.ec2.send(
        new DescribeCapacityReservationsCommand({ CapacityReservationIds: ['cr-404'] }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidCapacityReservationId.NotFound' });
  });

  it('launches a fleet whose template targets a reservation into it, until it is full, and terminating gives the place back', async () => {
    aws.capacityReservations.set(reservations);
    await aws.clients.ec2.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: 'karpenter.k8s.aws/reserved',
        LaunchTemplateData: {
          ImageId: aws.seed.amis.al2023X86,
          SecurityGroupIds: [aws.seed.nodeSecurityGroupId],
          CapacityReservationSpecification: {
            CapacityReservationPreference: 'capacity-reservations-only',
            CapacityReservationTarget: { CapacityReservationId: 'cr-0a1' },
          },
        },
      }),
    );
    const reservedFleet = () => {
      const input = fleet('on-demand', [{ type: 'm5.large', zone: 'a', price: 0.0000001 }]);
      input.LaunchTemplateConfigs![0]!.LaunchTemplateSpecification!.LaunchTemplateName =
        'karpenter.k8s.aws/reserved';
      return new CreateFleetCommand(input);
    };
    const first = await aws.clients.ec2.send(reservedFleet());
    expect(first.Errors).toEqual([]);
    const id = first.Instances![0]!.InstanceIds![0]!;
    expect(aws.launches.at(-1)).toMatchObject({
      capacityReservationId: 'cr-0a1',
      capacityType: 'on-demand',
    });
    expect((await instance(id))?.CapacityReservationId).toBe('cr-0a1');
    expect(aws.capacityReservations.available('cr-0a1')).toBe(0);
    expect(
      (
        await aws.clients.ec2.send(
          new DescribeCapacityReservationsCommand({ CapacityReservationIds: ['cr-0a1'] }),
        )
      ).CapacityReservations?.[0]?.AvailableInstanceCount,
    ).toBe(0);

    const full = await aws.clients.ec2.send(reservedFleet());
    expect(full.Instances ?? []).toEqual([]);
    expect(full.Errors?.map((e) => e.ErrorCode)).toEqual(['ReservationCapacityExceeded']);

    await aws.clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    expect(aws.capacityReservations.available('cr-0a1')).toBe(1);
    const again = await aws.clients.ec2.send(reservedFleet());
    expect(again.Instances?.[0]?.InstanceIds).toHaveLength(1);
  });

  it('refuses an override of another type or zone than the targeted reservation', async () => {
    aws.capacityReservations.set(reservations);
    const input = fleet('on-demand', [{ type: 'c5.large', zone: 'a', price: 0.0000001 }]);
    input.LaunchTemplateConfigs![0]!.LaunchTemplateSpecification!.LaunchTemplateName =
      'karpenter.k8s.aws/reserved';
    const out = await aws.clients.ec2.send(new CreateFleetCommand(input));
    expect(out.Instances ?? []).toEqual([]);
    expect(out.Errors?.[0]?.ErrorCode).toBe('InvalidParameterCombination');
  });
});

describe('faults and spot prices', () => {
  it('throttles and refuses whole calls with the service error the SDK classifies', async () => {
    aws.faults.error(
      'ec2',
      'DescribeSubnets',
      'RequestLimitExceeded',
      'Request limit exceeded.',
      503,
      1,
    );
    await expect(aws.clients.ec2.send(new DescribeSubnetsCommand({}))).rejects.toMatchObject({
      name: 'RequestLimitExceeded',
      $metadata: { httpStatusCode: 503 },
    });
    aws.faults.error(
      'ec2',
      'DescribeSubnets',
      'UnauthorizedOperation',
      'You are not authorized to perform this operation.',
      403,
      1,
    );
    await expect(aws.clients.ec2.send(new DescribeSubnetsCommand({}))).rejects.toMatchObject({
      name: 'UnauthorizedOperation',
    });
    await expect(aws.clients.ec2.send(new DescribeSubnetsCommand({}))).resolves.toBeDefined();
  });

  it('retries a throttled call in the SDK with its default retry strategy', async () => {
    aws.faults.error(
      'ec2',
      'DescribeSecurityGroups',
      'RequestLimitExceeded',
      'Request limit exceeded.',
      503,
      1,
    );
    const retrying = new EC2Client({ ...aws.clientConfig(), maxAttempts: 3 });
    const out = await retrying.send(new DescribeSecurityGroupsCommand({}));
    expect(out.$metadata.attempts).toBe(2);
  });

  it('answers spot price history from its table, now, for Linux/UNIX only', async () => {
    aws.spotPrices.set([{ instanceType: 'm5.large', zone: 'us-west-2c', price: 0.0321 }]);
    const out = await aws.clients.ec2.send(
      new DescribeSpotPriceHistoryCommand({
        InstanceTypes: ['m5.large'],
        ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
        StartTime: new Date(),
      }),
    );
    const c = out.SpotPriceHistory?.find((s) => s.AvailabilityZone === 'us-west-2c');
    expect(c).toMatchObject({
      InstanceType: 'm5.large',
      SpotPrice: '0.032100',
      ProductDescription: 'Linux/UNIX (Amazon VPC)',
    });
    expect(Date.now() - c!.Timestamp!.getTime()).toBeLessThan(60_000);
    const windows = await aws.clients.ec2.send(
      new DescribeSpotPriceHistoryCommand({ ProductDescriptions: ['Windows'] }),
    );
    expect(windows.SpotPriceHistory).toEqual([]);
  });
});
