// Instance profile garbage collection with the in-memory KubeClient and the real IAM SDK client
// against the AWS emulator: the cluster's managed profiles that no EC2NodeClass status and no
// NodeClaim annotation names are deleted once older than an hour; everything else stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateInstanceProfileCommand, GetInstanceProfileCommand } from '@aws-sdk/client-iam';
import { ManualClock, MemoryKubeClient, type NodeClassObject } from '@karpenter-ts/controllers';
import type { NodeClaim } from '@karpenter-ts/api';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import {
  EC2NodeClassTerminationFinalizer,
  createAwsClients,
  garbageCollectInstanceProfiles,
  reconcileEC2NodeClass,
  type AwsClients,
} from '../../src/index.js';

const cluster = 'ipgc';
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
const hour = 3600;

function ec2NodeClass(name: string): NodeClassObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': cluster } }],
      role: `KarpenterNodeRole-${cluster}`,
    },
  };
}

async function profileExists(name: string): Promise<boolean> {
  try {
    await clients.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }));
    return true;
  } catch {
    return false;
  }
}

/** Creates the NodeClass, lets the status controller make its profile, returns the name. */
async function managedProfile(client: MemoryKubeClient, clock: ManualClock, name: string) {
  await client.create('NodeClass', ec2NodeClass(name));
  await reconcileEC2NodeClass(
    {
      client,
      clock,
      clients,
      region: aws.region,
      clusterName: cluster,
      kubernetesVersion: async () => '1.36',
    },
    name,
  );
  return (await client.get('NodeClass', { name, nodeClass: kind }))!.status![
    'instanceProfile'
  ] as string;
}

/** Deletes the NodeClass from the API without its finalizer running (no controller was up). */
async function forget(client: MemoryKubeClient, name: string): Promise<void> {
  const nc = (await client.get('NodeClass', { name, nodeClass: kind }))!;
  expect(nc.metadata.finalizers).toEqual([EC2NodeClassTerminationFinalizer]);
  await client.update('NodeClass', { ...nc, metadata: { ...nc.metadata, finalizers: [] } });
  await client.delete('NodeClass', { name, nodeClass: kind });
}

describe('instance profile garbage collection', () => {
  it('deletes the managed profile of a NodeClass deleted while no controller ran, once it is an hour old, and keeps referenced, young and foreign profiles', async () => {
    const clock = new ManualClock(Date.now());
    const client = new MemoryKubeClient({ clock });
    const live = await managedProfile(client, clock, 'live');
    const gone = await managedProfile(client, clock, 'gone');
    const claimed = await managedProfile(client, clock, 'claimed');
    await forget(client, 'gone');
    await forget(client, 'claimed');
    // A NodeClaim still launched with the deleted NodeClass's profile keeps it.
    await client.create('NodeClaim', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name: 'claimed-1',
        annotations: { 'karpenter.k8s.aws/instance-profile-name': claimed },
      },
      spec: {
        requirements: [],
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'claimed' },
      },
    } as unknown as NodeClaim);
    // Another cluster's profile and a user's profile outside Karpenter's path are never listed.
    const region = aws.region;
    await clients.iam.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: 'other-cluster-profile',
        Path: `/karpenter/${region}/${cluster}-other/uid-x/`,
      }),
    );
    await clients.iam.send(
      new CreateInstanceProfileCommand({ InstanceProfileName: 'users-profile', Path: '/' }),
    );
    const ctx = { client, clients, clock, region, clusterName: cluster };

    expect(await garbageCollectInstanceProfiles(ctx)).toEqual([]);
    expect(await profileExists(gone)).toBe(true);

    clock.advance(hour + 60);
    expect(await garbageCollectInstanceProfiles(ctx)).toEqual([gone]);
    expect(await profileExists(gone)).toBe(false);
    for (const kept of [live, claimed, 'other-cluster-profile', 'users-profile'])
      expect(await profileExists(kept)).toBe(true);

    await client.delete('NodeClaim', { name: 'claimed-1' });
    expect(await garbageCollectInstanceProfiles(ctx)).toEqual([claimed]);
    expect(await profileExists(live)).toBe(true);
  });
});
