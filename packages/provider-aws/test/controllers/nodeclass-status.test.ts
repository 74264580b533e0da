// The EC2NodeClass status controller with the in-memory KubeClient and the real EC2, SSM and IAM
// SDK clients against the AWS emulator: what it writes, when it writes, and the conditions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, MemoryKubeClient, type NodeClassObject } from '@karpenter-ts/controllers';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import {
  createAwsClients,
  reconcileEC2NodeClass,
  type EC2NodeClassStatusControllerContext,
} from '../../src/index.js';

let aws: AwsEmulator;
beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'ctl' });
}, 240_000);
afterAll(async () => aws?.stop());

const kind = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass' };

function setup(): {
  ctx: EC2NodeClassStatusControllerContext;
  client: MemoryKubeClient;
  clock: ManualClock;
} {
  const clock = new ManualClock(Date.UTC(2026, 11, 1));
  const client = new MemoryKubeClient({ clock });
  const clients = createAwsClients({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });
  return {
    client,
    clock,
    ctx: {
      client,
      clock,
      clients,
      region: aws.region,
      clusterName: 'ctl',
      kubernetesVersion: async () => '1.36',
    },
  };
}

function ec2NodeClass(name: string, discovery: string): NodeClassObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name, generation: 1, uid: `uid-${name}` },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': discovery } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'ctl' } }],
      role: 'KarpenterNodeRole-ctl',
    },
  };
}

describe('EC2NodeClass status controller', () => {
  it('writes the resolved status with every condition at the generation, then writes nothing while nothing changes', async () => {
    const { ctx, client } = setup();
    await client.create('NodeClass', ec2NodeClass('default', 'ctl'));
    expect(await reconcileEC2NodeClass(ctx, 'default')).toEqual({ requeueAfter: 60 });
    const written = await client.get('NodeClass', { name: 'default', nodeClass: kind });
    const status = written!.status as Record<string, unknown> & {
      conditions: { type: string; status: string; observedGeneration?: number }[];
    };
    expect((status['subnets'] as unknown[]).length).toBe(3);
    expect(status['securityGroups']).toEqual([
      { id: aws.seed.nodeSecurityGroupId, name: 'ctl-node' },
    ]);
    expect((status['amis'] as unknown[]).length).toBe(3);
    expect(status['instanceProfile']).toMatch(/^ctl_\d+$/);
    expect(status.conditions.map((c) => [c.type, c.status, c.observedGeneration])).toEqual([
      ['SubnetsReady', 'True', 1],
      ['SecurityGroupsReady', 'True', 1],
      ['AMIsReady', 'True', 1],
      ['InstanceProfileReady', 'True', 1],
      ['CapacityReservationsReady', 'True', 1],
      ['ValidationSucceeded', 'True', 1],
      ['Ready', 'True', 1],
    ]);
    const version = written!.metadata.resourceVersion;
    await reconcileEC2NodeClass(ctx, 'default');
    expect(
      (await client.get('NodeClass', { name: 'default', nodeClass: kind }))!.metadata
        .resourceVersion,
    ).toBe(version);
  });

  it('is Ready=False with SubnetsNotFound while no subnet matches, and Ready with a new transition time once one does', async () => {
    const { ctx, client, clock } = setup();
    await client.create('NodeClass', ec2NodeClass('later', 'not-yet'));
    await reconcileEC2NodeClass(ctx, 'later');
    const ready = async () =>
      (
        (await client.get('NodeClass', { name: 'later', nodeClass: kind }))!.status!.conditions ??
        []
      ).find((c) => c.type === 'Ready')!;
    expect(await ready()).toMatchObject({ status: 'False', reason: 'SubnetsNotFound' });
    const falseSince = (await ready()).lastTransitionTime;
    clock.advance(60);
    const current = (await client.get('NodeClass', { name: 'later', nodeClass: kind }))!;
    await client.update('NodeClass', {
      ...current,
      spec: ec2NodeClass('later', 'ctl').spec!,
      metadata: { ...current.metadata, generation: 2 },
    });
    await reconcileEC2NodeClass(ctx, 'later');
    expect(await ready()).toMatchObject({ status: 'True', observedGeneration: 2 });
    expect((await ready()).lastTransitionTime).not.toBe(falseSince);
  });

  it('does nothing for a missing or deleting NodeClass', async () => {
    const { ctx } = setup();
    expect(await reconcileEC2NodeClass(ctx, 'absent')).toEqual({});
  });
});
