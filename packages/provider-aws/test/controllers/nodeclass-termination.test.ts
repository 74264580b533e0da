// EC2NodeClass deletion with the in-memory KubeClient and the real EC2 and IAM SDK clients
// against the AWS emulator: the status controller puts the finalizer on, and the termination
// controller waits for the NodeClass's NodeClaims, deletes its launch templates and the instance
// profile it created for `role` (never a user-given `instanceProfile`), then lets it go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateInstanceProfileCommand, GetInstanceProfileCommand } from '@aws-sdk/client-iam';
import { CreateLaunchTemplateCommand } from '@aws-sdk/client-ec2';
import { ManualClock, MemoryKubeClient, type NodeClassObject } from '@karpenter-ts/controllers';
import type { NodeClaim } from '@karpenter-ts/api';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import {
  EC2NodeClassTerminationFinalizer,
  clusterLaunchTemplates,
  createAwsClients,
  finalizeEC2NodeClass,
  listInstanceProfiles,
  managedInstanceProfilePath,
  reconcileEC2NodeClass,
  type AwsClients,
} from '../../src/index.js';

const cluster = 'fin';
let aws: AwsEmulator;
let clients: AwsClients;
beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: cluster });
  clients = createAwsClients({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });
}, 240_000);
afterAll(async () => aws?.stop());

const kind = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass' };

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 11, 1));
  const client = new MemoryKubeClient({ clock });
  const base = { client, clients, region: aws.region, clusterName: cluster };
  return {
    client,
    status: { ...base, clock, kubernetesVersion: async () => '1.36' },
    termination: base,
  };
}

function ec2NodeClass(name: string, identity: { role: string } | { instanceProfile: string }) {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster } }],
      ...identity,
    },
  } as NodeClassObject;
}

function nodeClaim(name: string, nodeClassName: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      requirements: [],
      resources: { requests: { cpu: '1' } },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName },
    },
  } as NodeClaim;
}

/** A launch template tagged as the launch path tags them, for the NodeClass `nodeClassName`. */
async function launchTemplateFor(nodeClassName: string, suffix: string): Promise<void> {
  await clients.ec2.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: `karpenter.k8s.aws/${nodeClassName}-${suffix}`,
      LaunchTemplateData: { ImageId: aws.seed.amis.al2023X86 },
      TagSpecifications: [
        {
          ResourceType: 'launch-template',
          Tags: [
            { Key: 'eks:eks-cluster-name', Value: cluster },
            { Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' },
            { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: nodeClassName },
          ],
        },
      ],
    }),
  );
}

async function profileExists(name: string): Promise<boolean> {
  try {
    await clients.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }));
    return true;
  } catch {
    return false;
  }
}

const templateNames = async (nodeClassName: string) =>
  (await clusterLaunchTemplates(clients.ec2, cluster, nodeClassName)).map(
    (t) => t.LaunchTemplateName,
  );

describe('EC2NodeClass termination', () => {
  it('the status controller puts the termination finalizer on before writing status', async () => {
    const { client, status } = setup();
    await client.create(
      'NodeClass',
      ec2NodeClass('tagged', { role: `KarpenterNodeRole-${cluster}` }),
    );
    await reconcileEC2NodeClass(status, 'tagged');
    const stored = await client.get('NodeClass', { name: 'tagged', nodeClass: kind });
    expect(stored!.metadata.finalizers).toEqual([EC2NodeClassTerminationFinalizer]);
    expect(stored!.status?.['instanceProfile']).toMatch(new RegExp(`^${cluster}_\\d+$`));
    await reconcileEC2NodeClass(status, 'tagged');
    expect(
      (await client.get('NodeClass', { name: 'tagged', nodeClass: kind }))!.metadata.finalizers,
    ).toEqual([EC2NodeClassTerminationFinalizer]);
  });

  it('waits while a NodeClaim references the NodeClass, saying which, then deletes its launch templates and managed instance profile and removes the finalizer', async () => {
    const { client, status, termination } = setup();
    await client.create(
      'NodeClass',
      ec2NodeClass('doomed', { role: `KarpenterNodeRole-${cluster}` }),
    );
    await client.create(
      'NodeClass',
      ec2NodeClass('kept', { role: `KarpenterNodeRole-${cluster}` }),
    );
    await reconcileEC2NodeClass(status, 'doomed');
    await reconcileEC2NodeClass(status, 'kept');
    const doomed = (await client.get('NodeClass', { name: 'doomed', nodeClass: kind }))!;
    const profile = doomed.status!['instanceProfile'] as string;
    const keptProfile = (await client.get('NodeClass', { name: 'kept', nodeClass: kind }))!.status![
      'instanceProfile'
    ] as string;
    expect(profile).not.toBe(keptProfile);
    await launchTemplateFor('doomed', 'a');
    await launchTemplateFor('doomed', 'b');
    await launchTemplateFor('kept', 'a');
    await client.create('NodeClaim', nodeClaim('doomed-1', 'doomed'));
    await client.create('NodeClaim', nodeClaim('other-1', 'kept'));

    await client.delete('NodeClass', { name: 'doomed', nodeClass: kind });
    expect(await finalizeEC2NodeClass(termination, 'doomed')).toEqual({ requeueAfter: 600 });
    expect(client.events).toContainEqual(
      expect.objectContaining({
        involved: expect.objectContaining({ kind: 'EC2NodeClass', name: 'doomed' }),
        reason: 'WaitingOnNodeClaimTermination',
        message: 'Waiting on NodeClaim termination for doomed-1',
      }),
    );
    expect(await client.get('NodeClass', { name: 'doomed', nodeClass: kind })).toBeDefined();
    expect(await profileExists(profile)).toBe(true);
    expect((await templateNames('doomed')).length).toBe(2);

    await client.delete('NodeClaim', { name: 'doomed-1' });
    expect(await finalizeEC2NodeClass(termination, 'doomed')).toEqual({});
    expect(await client.get('NodeClass', { name: 'doomed', nodeClass: kind })).toBeUndefined();
    expect(await profileExists(profile)).toBe(false);
    expect(await templateNames('doomed')).toEqual([]);
    // Another NodeClass's profile and launch templates are untouched.
    expect(await profileExists(keptProfile)).toBe(true);
    expect((await templateNames('kept')).length).toBe(1);
  });

  it('never deletes a user-given instanceProfile, but still deletes the launch templates', async () => {
    const { client, status, termination } = setup();
    await clients.iam.send(
      new CreateInstanceProfileCommand({ InstanceProfileName: 'team-nodes', Path: '/team/' }),
    );
    await client.create('NodeClass', ec2NodeClass('byo', { instanceProfile: 'team-nodes' }));
    await reconcileEC2NodeClass(status, 'byo');
    const byo = (await client.get('NodeClass', { name: 'byo', nodeClass: kind }))!;
    expect(byo.status!['instanceProfile']).toBe('team-nodes');
    await launchTemplateFor('byo', 'a');
    await client.delete('NodeClass', { name: 'byo', nodeClass: kind });
    expect(await finalizeEC2NodeClass(termination, 'byo')).toEqual({});
    expect(await client.get('NodeClass', { name: 'byo', nodeClass: kind })).toBeUndefined();
    expect(await profileExists('team-nodes')).toBe(true);
    expect(await templateNames('byo')).toEqual([]);
    // Nothing was created for it either: no profile under its NodeClass's managed path.
    const underUid = await listInstanceProfiles(
      clients.iam,
      managedInstanceProfilePath({
        region: aws.region,
        clusterName: cluster,
        nodeClassUID: byo.metadata.uid!,
      }),
    );
    expect(underUid).toEqual([]);
  });

  it('does nothing for a live NodeClass, a missing one, or one whose finalizer is already gone', async () => {
    const { client, status, termination } = setup();
    await client.create(
      'NodeClass',
      ec2NodeClass('live', { role: `KarpenterNodeRole-${cluster}` }),
    );
    await reconcileEC2NodeClass(status, 'live');
    await launchTemplateFor('live', 'a');
    expect(await finalizeEC2NodeClass(termination, 'live')).toEqual({});
    expect(await finalizeEC2NodeClass(termination, 'absent')).toEqual({});
    const live = (await client.get('NodeClass', { name: 'live', nodeClass: kind }))!;
    expect(live.metadata.finalizers).toEqual([EC2NodeClassTerminationFinalizer]);
    expect((await templateNames('live')).length).toBe(1);
    expect(await profileExists(live.status!['instanceProfile'] as string)).toBe(true);
  });
});
