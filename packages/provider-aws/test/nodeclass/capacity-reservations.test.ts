// EC2NodeClass capacityReservationSelectorTerms resolved into status.capacityReservations and
// the CapacityReservationsReady condition, through the real EC2 SDK client against the AWS
// emulator (its capacity reservation store: moto has none).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import {
  ReservationCapacity,
  createAwsClients,
  resolveEC2NodeClassStatus,
  type AwsClients,
  type EC2NodeClass,
  type EC2NodeClassSpec,
} from '../../src/index.js';

let aws: AwsEmulator;
let clients: AwsClients;
beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'cr' });
  clients = createAwsClients({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });
}, 240_000);
afterAll(async () => aws?.stop());

const now = Date.parse('2030-01-01T00:00:00Z');
const minutes = (n: number) => new Date(now + n * 60_000);

beforeEach(() => {
  aws.faults.clear();
  aws.capacityReservations.clear();
  aws.capacityReservations.set([
    {
      id: 'cr-0a1',
      instanceType: 'm5.large',
      zone: 'us-west-2a',
      totalInstanceCount: 3,
      availableInstanceCount: 2,
      tags: { team: 'ml' },
    },
    {
      id: 'cr-0b2',
      instanceType: 'p5.48xlarge',
      zone: 'us-west-2b',
      totalInstanceCount: 1,
      reservationType: 'capacity-block',
      endDate: minutes(39),
      tags: { team: 'ml' },
    },
    {
      id: 'cr-0c3',
      instanceType: 'c5.large',
      zone: 'us-west-2c',
      totalInstanceCount: 1,
      reservationType: 'capacity-block',
      endDate: minutes(41),
      ownerId: '210987654321',
      instanceMatchCriteria: 'open',
      interruptible: false,
    },
    {
      id: 'cr-0d4',
      instanceType: 'm5.large',
      zone: 'us-west-2a',
      totalInstanceCount: 1,
      state: 'expired',
      tags: { team: 'ml' },
    },
  ]);
});

function nodeClass(spec: Partial<EC2NodeClassSpec> = {}): EC2NodeClass {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'default', uid: 'uid-default', generation: 1 },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'cr' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'cr' } }],
      role: 'KarpenterNodeRole-cr',
      ...spec,
    },
  };
}

const resolve = (
  nc: EC2NodeClass,
  extra: { reservedCapacity?: boolean; reservationCapacity?: ReservationCapacity } = {},
) =>
  resolveEC2NodeClassStatus(
    { clients, region: aws.region, clusterName: 'cr', kubernetesVersion: '1.36', now, ...extra },
    nc,
  );

const condition = (r: Awaited<ReturnType<typeof resolve>>) =>
  r.conditions.find((c) => c.type === 'CapacityReservationsReady');

describe('EC2NodeClass capacity reservations', () => {
  it('selects active reservations by tags: the capacity block ending within 40 minutes is expiring', async () => {
    const counts = new ReservationCapacity();
    const r = await resolve(
      nodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] }),
      { reservationCapacity: counts },
    );
    expect(r.status.capacityReservations).toEqual([
      {
        id: 'cr-0a1',
        availabilityZone: 'us-west-2a',
        instanceType: 'm5.large',
        ownerID: '123456789012',
        instanceMatchCriteria: 'targeted',
        reservationType: 'default',
        state: 'active',
      },
      {
        id: 'cr-0b2',
        availabilityZone: 'us-west-2b',
        instanceType: 'p5.48xlarge',
        ownerID: '123456789012',
        instanceMatchCriteria: 'targeted',
        reservationType: 'capacity-block',
        state: 'expiring',
        endTime: minutes(39).toISOString(),
      },
    ]);
    expect(condition(r)).toMatchObject({ status: 'True' });
    expect(r.conditions.at(-1)).toMatchObject({ type: 'Ready', status: 'True' });
    // The available counts go to the launch path's store.
    expect(counts.remaining('cr-0a1')).toBe(2);
    expect(counts.remaining('cr-0b2')).toBe(1);
  });

  it('ORs terms, ANDs a term’s owner and match criteria, and selects by ID; a block ending in 41 minutes is active', async () => {
    const r = await resolve(
      nodeClass({
        capacityReservationSelectorTerms: [
          { ownerID: '210987654321', instanceMatchCriteria: 'open' },
          { ownerID: '210987654321', instanceMatchCriteria: 'targeted' },
          { id: 'cr-0a1' },
          { id: 'cr-0d4' },
          { id: 'cr-999' },
        ],
      }),
    );
    expect(r.status.capacityReservations?.map((c) => [c.id, c.state, c.interruptible])).toEqual([
      ['cr-0a1', 'active', undefined],
      ['cr-0c3', 'active', false],
    ]);
  });

  it('is Ready with no reservations when there are no terms or none matches', async () => {
    for (const terms of [undefined, [{ tags: { team: 'nobody' } }]]) {
      const r = await resolve(nodeClass(terms ? { capacityReservationSelectorTerms: terms } : {}));
      expect(r.status.capacityReservations).toEqual([]);
      expect(condition(r)).toMatchObject({ status: 'True' });
      expect(r.conditions.at(-1)).toMatchObject({ type: 'Ready', status: 'True' });
    }
  });

  it('with the ReservedCapacity gate off, resolves no reservations and has no condition', async () => {
    const r = await resolve(
      nodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] }),
      { reservedCapacity: false },
    );
    expect(r.status.capacityReservations).toBeUndefined();
    expect(condition(r)).toBeUndefined();
    expect(aws.requests.some((q) => q.action === 'DescribeCapacityReservations')).toBe(true);
    const before = aws.requests.filter((q) => q.action === 'DescribeCapacityReservations').length;
    await resolve(nodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] }), {
      reservedCapacity: false,
    });
    expect(aws.requests.filter((q) => q.action === 'DescribeCapacityReservations').length).toBe(
      before,
    );
  });

  it('an unauthorized DescribeCapacityReservations makes the condition and Ready False and keeps the previous reservations', async () => {
    const nc = nodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] });
    nc.status = { capacityReservations: [(await resolve(nc)).status.capacityReservations![0]!] };
    aws.faults.error(
      'ec2',
      'DescribeCapacityReservations',
      'UnauthorizedOperation',
      'You are not authorized to perform this operation.',
      403,
      1,
    );
    const r = await resolve(nc);
    expect(condition(r)).toMatchObject({ status: 'False', reason: 'Unauthorized' });
    expect(r.conditions.at(-1)).toMatchObject({
      type: 'Ready',
      status: 'False',
      reason: 'Unauthorized',
    });
    expect(r.status.capacityReservations?.map((c) => c.id)).toEqual(['cr-0a1']);
  });
});
