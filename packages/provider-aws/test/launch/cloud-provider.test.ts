// The AWS cloud provider through the real EC2, SSM and IAM SDK clients against the AWS emulator
// (moto behind tools/aws-emulator): create, the fleet request, capacity fallback, cleanup on
// failure, delete, get, list, drift and launch template garbage collection.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  type Instance,
} from '@aws-sdk/client-ec2';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import type { NodeClaim } from '@karpenter-ts/api';
import {
  InsufficientCapacityError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  isCreateError,
} from '@karpenter-ts/cloudprovider';
import {
  AwsCloudProvider,
  MaxInstanceTypes,
  createAwsClients,
  resolveEC2NodeClassStatus,
  type AwsClients,
  type EC2NodeClass,
} from '../../src/index.js';

let aws: AwsEmulator;
let clients: AwsClients;
let nodeClass: EC2NodeClass;
let provider: AwsCloudProvider;
const nodeClasses = new Map<string, EC2NodeClass>();

async function readyNodeClass(
  name: string,
  spec: Partial<EC2NodeClass['spec']> = {},
): Promise<EC2NodeClass> {
  const nc: EC2NodeClass = {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name, uid: `uid-${name}`, generation: 1 },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'launch' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'launch' } }],
      role: 'KarpenterNodeRole-launch',
      ...spec,
    },
  };
  const r = await resolveEC2NodeClassStatus(
    { clients, region: aws.region, clusterName: 'launch', kubernetesVersion: '1.36' },
    nc,
  );
  nc.status = {
    ...r.status,
    conditions: r.conditions.map((c) => ({
      ...c,
      lastTransitionTime: new Date().toISOString(),
      observedGeneration: 1,
    })),
  };
  nodeClasses.set(name, nc);
  return nc;
}

beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'launch' });
  clients = createAwsClients({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });
  nodeClass = await readyNodeClass('default');
  provider = new AwsCloudProvider({
    clients,
    region: aws.region,
    clusterName: 'launch',
    clusterEndpoint: 'https://127.0.0.1:6443',
    clusterDNS: ['10.100.0.10'],
    getNodeClass: async (name) => nodeClasses.get(name),
  });
}, 240_000);
afterAll(async () => aws?.stop());
beforeEach(() => aws.faults.clear());

let seq = 0;
function claim(
  requirements: NodeClaim['spec']['requirements'],
  nodeClassName = 'default',
): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: `default-${++seq}`, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      requirements,
      resources: { requests: { cpu: '1', memory: '1Gi' } },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName },
      taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
    },
  };
}

const types = (...names: string[]) => ({
  key: 'node.kubernetes.io/instance-type',
  operator: 'In' as const,
  values: names,
});
const capacity = (...values: string[]) => ({
  key: 'karpenter.sh/capacity-type',
  operator: 'In' as const,
  values,
});

async function instanceOf(providerID: string): Promise<Instance> {
  const id = providerID.slice(providerID.lastIndexOf('/') + 1);
  const out = await aws.clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return out.Reservations![0]!.Instances![0]!;
}

async function launchTemplateNames(): Promise<string[]> {
  const out = await aws.clients.ec2.send(new DescribeLaunchTemplatesCommand({}));
  return (out.LaunchTemplates ?? []).map((t) => t.LaunchTemplateName ?? '').sort();
}

function lastFleetParams(): URLSearchParams {
  const r = [...aws.requests]
    .reverse()
    .find((x) => x.service === 'ec2' && x.action === 'CreateFleet');
  return r!.params!;
}

function fleetInstanceTypes(p: URLSearchParams): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of p)
    if (/^LaunchTemplateConfigs\.\d+\.Overrides\.\d+\.InstanceType$/.test(k)) out.add(v);
  return out;
}

describe('AwsCloudProvider.create', () => {
  it('launches the cheapest on-demand type through CreateFleet instant and fills the node claim', async () => {
    const c = claim([types('m5.large', 'm5.xlarge'), capacity('on-demand')]);
    const launched = await provider.create(c);
    expect(launched.status?.providerID).toMatch(/^aws:\/\/\/us-west-2[abc]\/i-[0-9a-f]+$/);
    expect(launched.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'm5.large',
      'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.sh/nodepool': 'default',
      'topology.kubernetes.io/region': 'us-west-2',
      'karpenter.k8s.aws/instance-family': 'm5',
    });
    expect(launched.status?.imageID).toBe(aws.seed.amis.al2023X86);
    expect(launched.status?.allocatable?.['cpu']).toBe('1930m');
    const p = lastFleetParams();
    expect(p.get('Type')).toBe('instant');
    expect(p.get('OnDemandOptions.AllocationStrategy')).toBe('lowest-price');
    expect(p.get('TargetCapacitySpecification.DefaultTargetCapacityType')).toBe('on-demand');
    expect(fleetInstanceTypes(p)).toEqual(new Set(['m5.large', 'm5.xlarge']));
    const instance = await instanceOf(launched.status!.providerID!);
    expect(instance.SecurityGroups?.map((g) => g.GroupId)).toEqual([aws.seed.nodeSecurityGroupId]);
    expect(instance.IamInstanceProfile?.Arn).toContain(nodeClass.status!.instanceProfile!);
    expect(instance.MetadataOptions?.HttpTokens).toBe('required');
    const tags = Object.fromEntries((instance.Tags ?? []).map((t) => [t.Key, t.Value]));
    expect(tags).toMatchObject({
      'karpenter.sh/nodeclaim': c.metadata.name,
      'karpenter.sh/nodepool': 'default',
      'eks:eks-cluster-name': 'launch',
      'kubernetes.io/cluster/launch': 'owned',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
    });
    const userData = aws.launches.at(-1)!.userData;
    expect(userData).toContain('Content-Type: application/node.eks.aws');
    expect(userData).toContain('apiServerEndpoint: https://127.0.0.1:6443');
    expect(userData).toContain('maxPods: 29');
    expect(userData).toContain(
      '--register-with-taints=karpenter.sh/unregistered:NoExecute,dedicated=web:NoSchedule',
    );
    // Idempotent by name: the instance tagged for the claim is returned, none is added.
    const again = await provider.create(c);
    expect(again.status?.providerID).toBe(launched.status?.providerID);
  });

  it('prefers spot when the claim allows it, with price-capacity-optimized', async () => {
    const launched = await provider.create(
      claim([types('c5.large', 'm5.large'), capacity('spot', 'on-demand')]),
    );
    expect(launched.metadata.labels?.['karpenter.sh/capacity-type']).toBe('spot');
    expect(lastFleetParams().get('SpotOptions.AllocationStrategy')).toBe(
      'price-capacity-optimized',
    );
    expect((await instanceOf(launched.status!.providerID!)).InstanceLifecycle).toBe('spot');
  });

  it('sends at most 60 instance types, the cheapest', async () => {
    await provider.create(
      claim([
        capacity('on-demand'),
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      ]),
    );
    expect(fleetInstanceTypes(lastFleetParams()).size).toBe(MaxInstanceTypes);
  });

  it('falls back past an out-of-capacity offering and marks it unavailable for 3 minutes', async () => {
    aws.faults.capacity({ instanceType: 'c5.large', capacityType: 'on-demand' });
    const launched = await provider.create(
      claim([types('c5.large', 'c5.xlarge'), capacity('on-demand')]),
    );
    expect(launched.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('c5.xlarge');
    expect(provider.unavailableOfferings.list()).toEqual(
      expect.arrayContaining([
        { instanceType: 'c5.large', zone: 'us-west-2a', capacityType: 'on-demand' },
      ]),
    );
    const nodePool = {
      spec: { template: { spec: { nodeClassRef: { name: 'default' } } } },
    } as never;
    const c5 = (await provider.getInstanceTypes(nodePool)).find((t) => t.name === 'c5.large')!;
    expect(c5.offerings.filter((o) => o.capacityType === 'on-demand' && o.available)).toEqual([]);
  });

  it('raises InsufficientCapacityError when every override is out of capacity, and leaves no instance or launch template', async () => {
    const templatesBefore = await launchTemplateNames();
    const launchesBefore = aws.launches.length;
    aws.faults.capacity({ instanceType: 'r5.large' });
    await expect(
      provider.create(claim([types('r5.large'), capacity('on-demand')])),
    ).rejects.toBeInstanceOf(InsufficientCapacityError);
    expect(aws.launches.length).toBe(launchesBefore);
    expect(await launchTemplateNames()).toEqual(templatesBefore);
    // Now every r5.large offering is in the cache: nothing is launchable, without calling EC2.
    await expect(
      provider.create(claim([types('r5.large'), capacity('on-demand')])),
    ).rejects.toThrow(/no instance type option/);
  });

  it('raises CreateError LaunchFailed for a throttled CreateFleet, deleting the templates it created', async () => {
    const templatesBefore = await launchTemplateNames();
    aws.faults.error(
      'ec2',
      'CreateFleet',
      'RequestLimitExceeded',
      'Request limit exceeded.',
      503,
      1,
    );
    const err = await provider
      .create(claim([types('r5.xlarge'), capacity('on-demand')]))
      .catch((e: unknown) => e);
    expect(isCreateError(err)).toBe(true);
    expect((err as Error).message).toContain('RequestLimitExceeded');
    expect(await launchTemplateNames()).toEqual(templatesBefore);
  });

  it('refuses a NodeClass that is not Ready, and a missing one', async () => {
    const bad = await readyNodeClass('nosubnets', {
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'nobody' } }],
    });
    expect(bad.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    const before = aws.launches.length;
    await expect(provider.create(claim([types('m5.large')], 'nosubnets'))).rejects.toBeInstanceOf(
      NodeClassNotReadyError,
    );
    await expect(provider.create(claim([types('m5.large')], 'missing'))).rejects.toBeInstanceOf(
      InsufficientCapacityError,
    );
    expect(aws.launches.length).toBe(before);
  });

  it('launches nothing from a Ready NodeClass being deleted, and offers no instance types for it, as for a missing one', async () => {
    const deleting = await readyNodeClass('deleting');
    expect(deleting.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    deleting.metadata.deletionTimestamp = new Date().toISOString() as never;
    const before = aws.launches.length;
    await expect(provider.create(claim([types('m5.large')], 'deleting'))).rejects.toThrow(
      /EC2NodeClass deleting is being deleted/,
    );
    await expect(provider.create(claim([types('m5.large')], 'deleting'))).rejects.toBeInstanceOf(
      InsufficientCapacityError,
    );
    const pool = { spec: { template: { spec: { nodeClassRef: { name: 'deleting' } } } } } as never;
    expect(await provider.getInstanceTypes(pool)).toEqual([]);
    expect(aws.launches.length).toBe(before);
  });
});

describe('AwsCloudProvider delete, get, list, drift, launch template GC', () => {
  it('lists launched instances by claim name, terminates one, then reports it gone', async () => {
    const c = claim([types('m5.large'), capacity('on-demand')]);
    const launched = await provider.create(c);
    const listed = await provider.list();
    const mine = listed.find((n) => n.metadata.name === c.metadata.name);
    expect(mine?.status?.providerID).toBe(launched.status?.providerID);
    expect(mine?.metadata.creationTimestamp).toBeInstanceOf(Date);
    expect((await provider.get(launched.status!.providerID!)).metadata.name).toBe(c.metadata.name);
    await provider.delete(launched);
    await expect(provider.delete(launched)).rejects.toBeInstanceOf(NodeClaimNotFoundError);
    await expect(provider.get(launched.status!.providerID!)).rejects.toBeInstanceOf(
      NodeClaimNotFoundError,
    );
    expect((await provider.list()).map((n) => n.metadata.name)).not.toContain(c.metadata.name);
  });

  it('reports AMI, security group, subnet and NodeClass drift', async () => {
    const launched = await provider.create(
      claim([types('m5.large'), capacity('on-demand')], 'default'),
    );
    expect(await provider.isDrifted(launched)).toBe('');
    const saved = structuredClone(nodeClass);
    try {
      nodeClass.status!.amis = nodeClass.status!.amis!.filter(
        (a) => a.id !== launched.status?.imageID,
      );
      expect(await provider.isDrifted(launched)).toBe('AMIDrift');
      nodeClass.status = structuredClone(saved.status);
      nodeClass.status!.securityGroups = [
        { id: aws.seed.clusterSecurityGroupId, name: 'launch-cluster' },
      ];
      expect(await provider.isDrifted(launched)).toBe('SecurityGroupDrift');
      nodeClass.status = structuredClone(saved.status);
      nodeClass.status!.subnets = [];
      expect(await provider.isDrifted(launched)).toBe('SubnetDrift');
      nodeClass.status = structuredClone(saved.status);
      nodeClass.spec.detailedMonitoring = true;
      expect(await provider.isDrifted(launched)).toBe('NodeClassDrift');
    } finally {
      nodeClass.spec = saved.spec;
      nodeClass.status = saved.status;
    }
  });

  it('garbage-collects launch templates no active instance uses', async () => {
    for (const n of await provider.list()) await provider.delete(n).catch(() => undefined);
    const deleted = await provider.garbageCollectLaunchTemplates(0);
    expect(deleted.length).toBeGreaterThan(0);
    expect(await launchTemplateNames()).toEqual([]);
  });
});

describe('AwsCloudProvider spot prices', () => {
  const nodePool = { spec: { template: { spec: { nodeClassRef: { name: 'default' } } } } } as never;
  const spot = async (type: string) =>
    (await provider.getInstanceTypes(nodePool))
      .find((t) => t.name === type)!
      .offerings.filter((o) => o.capacityType === 'spot');

  it('uses the 0.7 model until DescribeSpotPriceHistory answers, then its prices; a type without one has no spot offering', async () => {
    expect(provider.spotPrices).toBeUndefined();
    const modelled = await spot('m5.large');
    const onDemand = (await provider.getInstanceTypes(nodePool))
      .find((t) => t.name === 'm5.large')!
      .offerings.find((o) => o.capacityType === 'on-demand')!.price;
    expect(modelled[0]!.price).toBeCloseTo(onDemand * 0.7, 10);
    aws.spotPrices.set(
      ['us-west-2a', 'us-west-2b', 'us-west-2c'].map((zone, i) => ({
        instanceType: 'm5.large',
        zone,
        price: 0.031 + i / 1000,
      })),
    );
    expect(await provider.refreshSpotPrices()).toBe(3);
    expect(Object.fromEntries((await spot('m5.large')).map((o) => [o.zone, o.price]))).toEqual({
      'us-west-2a': 0.031,
      'us-west-2b': 0.032,
      'us-west-2c': 0.033,
    });
    expect((await spot('m5.xlarge')).every((o) => !o.available)).toBe(true);
  });

  it('keeps the previous prices when a refresh fails', async () => {
    aws.faults.error(
      'ec2',
      'DescribeSpotPriceHistory',
      'UnauthorizedOperation',
      'You are not authorized to perform this operation.',
      403,
      1,
    );
    await expect(provider.refreshSpotPrices()).rejects.toMatchObject({
      name: 'UnauthorizedOperation',
    });
    expect(provider.spotPrices?.get('m5.large/us-west-2a')).toBe(0.031);
  });
});
