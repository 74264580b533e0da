// Reserved offerings and launches into capacity reservations, through the real EC2, SSM and IAM
// SDK clients against the AWS emulator (its capacity reservation store: moto has none): the
// offerings status.capacityReservations become, CreateFleet targeting a reservation, counting
// launches down, a full reservation falling back, capacity blocks, the ReservedCapacity gate and
// CapacityReservationDrift.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DescribeLaunchTemplateVersionsCommand,
  type RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import {
  startAwsEmulator,
  type AwsEmulator,
  type CapacityReservation,
} from '@karpenter-ts/aws-emulator';
import type { NodeClaim } from '@karpenter-ts/api';
import { InsufficientCapacityError, type InstanceType } from '@karpenter-ts/cloudprovider';
import {
  AwsCloudProvider,
  ReservedPriceDivisor,
  createAwsClients,
  resolveEC2NodeClassStatus,
  type AwsClients,
  type EC2NodeClass,
} from '../../src/index.js';

let aws: AwsEmulator;
let clients: AwsClients;
let provider: AwsCloudProvider;
const nodeClasses = new Map<string, EC2NodeClass>();

/** A Ready NodeClass selecting the reservations tagged `pool=<name>`, resolved into the provider's counts. */
async function readyNodeClass(
  name: string,
  spec: Partial<EC2NodeClass['spec']> = {},
  into: AwsCloudProvider = provider,
): Promise<EC2NodeClass> {
  const nc: EC2NodeClass = {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name, uid: `uid-${name}`, generation: 1 },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'reserved' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'reserved' } }],
      capacityReservationSelectorTerms: [{ tags: { pool: name } }],
      role: 'KarpenterNodeRole-reserved',
      ...spec,
    },
  };
  const r = await resolveEC2NodeClassStatus(
    {
      clients,
      region: aws.region,
      clusterName: 'reserved',
      kubernetesVersion: '1.36',
      reservationCapacity: into.reservationCapacity,
    },
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

function newProvider(reservedCapacity?: boolean): AwsCloudProvider {
  return new AwsCloudProvider({
    clients,
    region: aws.region,
    clusterName: 'reserved',
    clusterEndpoint: 'https://127.0.0.1:6443',
    getNodeClass: async (name) => nodeClasses.get(name),
    ...(reservedCapacity !== undefined ? { reservedCapacity } : {}),
  });
}

beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'reserved' });
  clients = createAwsClients({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });
  provider = newProvider();
}, 240_000);
afterAll(async () => aws?.stop());
beforeEach(() => aws.faults.clear());

function reservation(
  id: string,
  pool: string,
  more: Partial<CapacityReservation> = {},
): CapacityReservation {
  return {
    id,
    instanceType: 'm5.large',
    zone: 'us-west-2a',
    totalInstanceCount: 2,
    tags: { pool },
    ...more,
  };
}

let seq = 0;
function claim(nodeClassName: string, ...types: string[]): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: `reserved-${++seq}`, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: types },
        {
          key: 'karpenter.sh/capacity-type',
          operator: 'In',
          values: ['reserved', 'on-demand'],
        },
      ],
      resources: { requests: { cpu: '1', memory: '1Gi' } },
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName },
    },
  };
}

const pool = (name: string) =>
  ({ spec: { template: { spec: { nodeClassRef: { name } } } } }) as never;

async function instanceType(
  name: string,
  type: string,
  from: AwsCloudProvider = provider,
): Promise<InstanceType> {
  return (await from.getInstanceTypes(pool(name))).find((t) => t.name === type)!;
}

function lastFleetParams(): URLSearchParams {
  const r = [...aws.requests]
    .reverse()
    .find((x) => x.service === 'ec2' && x.action === 'CreateFleet');
  return r!.params!;
}

async function templateData(name: string): Promise<RequestLaunchTemplateData> {
  const out = await aws.clients.ec2.send(
    new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateName: name, Versions: ['$Latest'] }),
  );
  return out.LaunchTemplateVersions![0]!.LaunchTemplateData as RequestLaunchTemplateData;
}

const fleetTemplate = (p: URLSearchParams) =>
  p.get('LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName')!;

describe('reserved offerings', () => {
  it('offers each reservation in status as a reserved offering priced on-demand / 10,000,000, with its labels and remaining capacity', async () => {
    aws.capacityReservations.set([
      reservation('cr-0f1', 'offer', { totalInstanceCount: 3, availableInstanceCount: 2 }),
      reservation('cr-0f2', 'offer', {
        instanceType: 'c5.large',
        zone: 'us-west-2b',
        reservationType: 'capacity-block',
        endDate: new Date(Date.now() + 30 * 60_000),
        totalInstanceCount: 1,
      }),
    ]);
    await readyNodeClass('offer');
    const m5 = await instanceType('offer', 'm5.large');
    const onDemand = m5.offerings.find(
      (o) => o.capacityType === 'on-demand' && o.zone === 'us-west-2a',
    )!;
    const reserved = m5.offerings.filter((o) => o.capacityType === 'reserved');
    expect(reserved).toHaveLength(1);
    expect(reserved[0]).toMatchObject({
      zone: 'us-west-2a',
      available: true,
      reservationCapacity: 2,
      price: onDemand.price / ReservedPriceDivisor,
    });
    expect(reserved[0]!.requirements.labels()).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0f1',
      'karpenter.k8s.aws/capacity-reservation-type': 'default',
      'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
    });
    expect(m5.requirements.get('karpenter.sh/capacity-type').valuesList().toSorted()).toEqual([
      'on-demand',
      'reserved',
      'spot',
    ]);
    // A capacity block in its last 40 minutes takes no new node.
    const c5 = await instanceType('offer', 'c5.large');
    expect(c5.offerings.filter((o) => o.capacityType === 'reserved')).toMatchObject([
      { zone: 'us-west-2b', available: false, reservationCapacity: 1 },
    ]);
    // Types no reservation names have no reserved offering.
    const r5 = await instanceType('offer', 'r5.large');
    expect(r5.offerings.some((o) => o.capacityType === 'reserved')).toBe(false);
    expect(r5.requirements.get('karpenter.sh/capacity-type').valuesList()).not.toContain(
      'reserved',
    );
  });

  it('offers nothing for a reservation outside the subnets’ zones, nor with the ReservedCapacity gate off', async () => {
    aws.capacityReservations.set([reservation('cr-0e1', 'zones', { zone: 'us-west-2b' })]);
    await readyNodeClass('zones', { subnetSelectorTerms: [{ id: aws.seed.untaggedSubnetId }] });
    const m5 = await instanceType('zones', 'm5.large');
    expect(m5.offerings.some((o) => o.capacityType === 'reserved')).toBe(false);

    const gateOff = newProvider(false);
    aws.capacityReservations.set([reservation('cr-0e2', 'gateoff')]);
    await readyNodeClass('gateoff', {}, gateOff);
    const off = await instanceType('gateoff', 'm5.large', gateOff);
    expect(off.offerings.some((o) => o.capacityType === 'reserved')).toBe(false);
  });
});

describe('launching into a capacity reservation', () => {
  it('targets the reservation from the launch template, labels the claim reserved and counts the launches down until it falls back to on-demand', async () => {
    aws.capacityReservations.set([reservation('cr-0a1', 'launch', { totalInstanceCount: 2 })]);
    await readyNodeClass('launch');

    const first = await provider.create(claim('launch', 'm5.large'));
    expect(first.metadata.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'topology.kubernetes.io/zone': 'us-west-2a',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1',
      'karpenter.k8s.aws/capacity-reservation-type': 'default',
      'karpenter.k8s.aws/capacity-reservation-interruptible': 'false',
    });
    const p = lastFleetParams();
    expect(p.get('TargetCapacitySpecification.DefaultTargetCapacityType')).toBe('on-demand');
    expect(p.get('OnDemandOptions.AllocationStrategy')).toBe('lowest-price');
    expect(p.get('LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName')).toBe(
      null,
    );
    expect((await templateData(fleetTemplate(p))).CapacityReservationSpecification).toEqual({
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: 'cr-0a1' },
    });
    expect(aws.launches.at(-1)).toMatchObject({ capacityReservationId: 'cr-0a1' });
    expect(provider.reservationCapacity.remaining('cr-0a1')).toBe(1);

    await provider.create(claim('launch', 'm5.large'));
    expect(provider.reservationCapacity.remaining('cr-0a1')).toBe(0);
    expect(aws.capacityReservations.available('cr-0a1')).toBe(0);

    // Full: the reserved offering is unavailable, so the next claim launches on-demand, outside
    // any reservation.
    const m5 = await instanceType('launch', 'm5.large');
    expect(m5.offerings.find((o) => o.capacityType === 'reserved')?.available).toBe(false);
    const third = await provider.create(claim('launch', 'm5.large'));
    expect(third.metadata.labels?.['karpenter.sh/capacity-type']).toBe('on-demand');
    expect(third.metadata.labels?.['karpenter.k8s.aws/capacity-reservation-id']).toBeUndefined();
    expect(
      (await templateData(fleetTemplate(lastFleetParams()))).CapacityReservationSpecification,
    ).toEqual({ CapacityReservationPreference: 'none' });
    expect(aws.launches.at(-1)?.capacityReservationId).toBeUndefined();

    // get and list see the reservation on the instance.
    const got = await provider.get(first.status!.providerID!);
    expect(got.metadata.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1',
    });
  });

  it('on ReservationCapacityExceeded marks the reservation, not the on-demand offering, and the next try falls back', async () => {
    aws.capacityReservations.set([reservation('cr-0b1', 'full', { instanceType: 'c5.large' })]);
    await readyNodeClass('full');
    // EC2 has less than the last refresh said (another cluster took it).
    aws.capacityReservations.set([
      reservation('cr-0b1', 'full', { instanceType: 'c5.large', availableInstanceCount: 0 }),
    ]);
    const before = aws.launches.length;
    const err = await provider.create(claim('full', 'c5.large')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect((err as Error).message).toContain('ReservationCapacityExceeded');
    expect(aws.launches.length).toBe(before);
    expect(provider.reservationCapacity.remaining('cr-0b1')).toBe(0);
    expect(provider.unavailableOfferings.list()).toEqual([]);

    const next = await provider.create(claim('full', 'c5.large'));
    expect(next.metadata.labels?.['karpenter.sh/capacity-type']).toBe('on-demand');
    expect(next.metadata.labels?.['topology.kubernetes.io/zone']).toBe('us-west-2a');
  });

  it('sends one reservation per type and zone, the one with most capacity left', async () => {
    aws.capacityReservations.set([
      reservation('cr-0c1', 'most', { totalInstanceCount: 1 }),
      reservation('cr-0c2', 'most', { totalInstanceCount: 3 }),
    ]);
    await readyNodeClass('most');
    const launched = await provider.create(claim('most', 'm5.large'));
    expect(launched.metadata.labels?.['karpenter.k8s.aws/capacity-reservation-id']).toBe('cr-0c2');
    const p = lastFleetParams();
    expect(p.get('LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName')).toBe(
      null,
    );
    expect(p.get('LaunchTemplateConfigs.1.Overrides.2.InstanceType')).toBe(null);
  });

  it('launches a capacity block as capacity-block when it is the cheapest market, only its cheapest type', async () => {
    aws.capacityReservations.set([
      reservation('cr-0d1', 'block', { instanceType: 'm5.large' }),
      reservation('cr-0d2', 'block', {
        instanceType: 'c5.large',
        zone: 'us-west-2b',
        reservationType: 'capacity-block',
        endDate: new Date(Date.now() + 24 * 3600_000),
      }),
      reservation('cr-0d3', 'block', {
        instanceType: 'c5.xlarge',
        zone: 'us-west-2b',
        reservationType: 'capacity-block',
        endDate: new Date(Date.now() + 24 * 3600_000),
      }),
    ]);
    await readyNodeClass('block');
    const launched = await provider.create(claim('block', 'm5.large', 'c5.large', 'c5.xlarge'));
    expect(launched.metadata.labels).toMatchObject({
      'karpenter.sh/capacity-type': 'reserved',
      'node.kubernetes.io/instance-type': 'c5.large',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0d2',
      'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block',
    });
    const p = lastFleetParams();
    expect(p.get('TargetCapacitySpecification.DefaultTargetCapacityType')).toBe('capacity-block');
    expect(p.get('OnDemandOptions.AllocationStrategy')).toBe(null);
    expect(p.get('LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName')).toBe(
      null,
    );
    expect((await templateData(fleetTemplate(p))).InstanceMarketOptions?.MarketType).toBe(
      'capacity-block',
    );
  });
});

describe('CapacityReservationDrift', () => {
  it('drifts a claim whose instance’s reservation left status.capacityReservations', async () => {
    aws.capacityReservations.set([reservation('cr-0e9', 'drift')]);
    const nc = await readyNodeClass('drift');
    const launched = await provider.create(claim('drift', 'm5.large'));
    expect(await provider.isDrifted(launched)).toBe('');
    const saved = nc.status!.capacityReservations;
    nc.status!.capacityReservations = [];
    try {
      expect(await provider.isDrifted(launched)).toBe('CapacityReservationDrift');
      // Without the ReservedCapacity gate reservations are not tracked, so nothing drifts for them.
      expect(await newProvider(false).isDrifted(launched)).toBe('');
    } finally {
      nc.status!.capacityReservations = saved;
    }
  });
});
