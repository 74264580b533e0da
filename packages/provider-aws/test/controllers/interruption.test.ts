// The interruption controller with the in-memory KubeClient and the real SQS SDK client against
// the AWS emulator (moto's SQS behind tools/aws-emulator): what each message kind does to its
// NodeClaim, the offering a spot interruption marks, that every message leaves the queue
// (malformed ones and ones about instances that are not ours too), the metrics, and failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { startAwsEmulator, type AwsEmulator } from '@karpenter-ts/aws-emulator';
import type { Node, NodeClaim } from '@karpenter-ts/api';
import { ManualClock, MemoryKubeClient, type KubeClient } from '@karpenter-ts/controllers';
import {
  InterruptionController,
  ReservationCapacity,
  SqsInterruptionQueue,
  UnavailableOfferings,
  createSqsClient,
  type InterruptionMetrics,
} from '../../src/index.js';

let aws: AwsEmulator;
beforeAll(async () => {
  aws = await startAwsEmulator({ clusterName: 'intr' });
}, 240_000);
afterAll(async () => aws?.stop());

const sqs = () =>
  createSqsClient({
    region: aws.region,
    endpoint: aws.url,
    credentials: aws.clientConfig().credentials,
    maxAttempts: 1,
  });

let queues = 0;
/** A fresh queue for one test; resolves with its URL. */
async function newQueue(): Promise<string> {
  const out = await aws.clients.sqs.send(new CreateQueueCommand({ QueueName: `q${++queues}` }));
  return out.QueueUrl ?? '';
}

async function send(url: string, body: string): Promise<void> {
  await aws.clients.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
}

/** Messages on the queue: waiting and received but not deleted. */
async function onQueue(url: string): Promise<{ visible: number; inFlight: number }> {
  const out = await aws.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(out.Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

const eventTime = Date.UTC(2026, 11, 1, 10, 0, 0);

function eventBridge(source: string, detailType: string, detail: unknown): string {
  return JSON.stringify({
    version: '0',
    id: `evt-${Math.random().toString(16).slice(2)}`,
    'detail-type': detailType,
    source,
    account: '123456789012',
    time: new Date(eventTime).toISOString(),
    region: 'us-west-2',
    resources: [],
    detail,
  });
}

const spotWarning = (id: string) =>
  eventBridge('aws.ec2', 'EC2 Spot Instance Interruption Warning', {
    'instance-id': id,
    'instance-action': 'terminate',
  });
const rebalance = (id: string) =>
  eventBridge('aws.ec2', 'EC2 Instance Rebalance Recommendation', { 'instance-id': id });
const stateChange = (id: string, state: string) =>
  eventBridge('aws.ec2', 'EC2 Instance State-change Notification', {
    'instance-id': id,
    state,
  });
const scheduledChange = (ids: string[], category = 'scheduledChange') =>
  eventBridge('aws.health', 'AWS Health Event', {
    service: 'EC2',
    eventTypeCategory: category,
    eventTypeCode: 'AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED',
    affectedEntities: ids.map((entityValue) => ({ entityValue })),
  });

/** A launched, registered NodeClaim on instance `id` (spot m5.large in us-west-2b) and its Node. */
async function launched(
  client: MemoryKubeClient,
  name: string,
  id: string,
  more: Record<string, string> = {},
): Promise<void> {
  const providerID = `aws:///us-west-2b/${id}`;
  const labels = {
    'karpenter.sh/nodepool': 'default',
    'karpenter.sh/capacity-type': 'spot',
    'node.kubernetes.io/instance-type': 'm5.large',
    'topology.kubernetes.io/zone': 'us-west-2b',
    ...more,
  };
  const claim: NodeClaim = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels, finalizers: ['karpenter.sh/termination'] },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [],
    },
  };
  const created = await client.create('NodeClaim', claim);
  await client.updateStatus('NodeClaim', { ...created, status: { providerID, nodeName: id } });
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: id, labels },
    spec: { providerID },
  };
  await client.create('Node', node);
}

interface Recorded {
  received: string[];
  deleted: number;
  durations: number[];
  disrupted: [string, string][];
}

function recordingMetrics(): InterruptionMetrics & { seen: Recorded } {
  const seen: Recorded = { received: [], deleted: 0, durations: [], disrupted: [] };
  return {
    seen,
    messageReceived: (type) => void seen.received.push(type),
    messageDeleted: () => void (seen.deleted += 1),
    messageQueueDuration: (s) => void seen.durations.push(s),
    nodeClaimDisrupted: (nc, kind) => void seen.disrupted.push([nc.metadata.name ?? '', kind]),
  };
}

function setup(queue: string, client?: KubeClient) {
  const clock = new ManualClock(eventTime + 3_000);
  const memory = new MemoryKubeClient({ clock });
  const metrics = recordingMetrics();
  const errors: { message: string; fields?: Record<string, unknown> }[] = [];
  const unavailableOfferings = new UnavailableOfferings(clock);
  const reservationCapacity = new ReservationCapacity();
  const controller = new InterruptionController({
    client: client ?? memory,
    queue: new SqsInterruptionQueue({ sqs: sqs(), queue, waitTimeSeconds: 1 }),
    unavailableOfferings,
    reservationCapacity,
    clock,
    metrics,
    logger: {
      info: () => {},
      error: (message, fields) => void errors.push({ message, ...(fields ? { fields } : {}) }),
    },
  });
  return {
    clock,
    client: memory,
    metrics,
    errors,
    unavailableOfferings,
    reservationCapacity,
    controller,
  };
}

const deleting = async (client: MemoryKubeClient, name: string) =>
  (await client.get('NodeClaim', { name }))?.metadata.deletionTimestamp !== undefined;

describe('interruption controller', () => {
  it('deletes the NodeClaim of a spot interruption warning, marks its spot offering unavailable and deletes the message', async () => {
    const url = await newQueue();
    const t = setup(url);
    await launched(t.client, 'spot-1', 'i-0a1');
    await launched(t.client, 'other', 'i-0a2');
    await send(url, spotWarning('i-0a1'));

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 1, deleted: 1, deletedNodeClaims: ['spot-1'] });
    expect(await deleting(t.client, 'spot-1')).toBe(true);
    expect(await deleting(t.client, 'other')).toBe(false);
    expect(t.unavailableOfferings.list()).toEqual([
      { capacityType: 'spot', instanceType: 'm5.large', zone: 'us-west-2b' },
    ]);
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 0 });
    expect(t.client.events.map((e) => `${e.involved.kind}/${e.involved.name} ${e.reason}`)).toEqual(
      [
        'NodeClaim/spot-1 SpotInterrupted',
        'Node/i-0a1 SpotInterrupted',
        'NodeClaim/spot-1 TerminatingOnInterruption',
        'Node/i-0a1 TerminatingOnInterruption',
      ],
    );
    expect(t.metrics.seen).toEqual({
      received: ['spot_interrupted'],
      deleted: 1,
      durations: [3],
      disrupted: [['spot-1', 'spot_interrupted']],
    });
  });

  it('marks the reservation of a capacity reservation interruption warning unavailable and deletes its NodeClaim', async () => {
    const url = await newQueue();
    const t = setup(url);
    t.reservationCapacity.observe([
      { id: 'cr-0a1', availableInstanceCount: 2 },
      { id: 'cr-0b2', availableInstanceCount: 1 },
    ]);
    await launched(t.client, 'reserved-1', 'i-0c1', {
      'karpenter.sh/capacity-type': 'reserved',
      'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1',
    });
    await send(
      url,
      eventBridge('aws.ec2', 'EC2 Capacity Reservation Instance Interruption Warning', {
        'instance-id': 'i-0c1',
        'instance-action': 'terminate',
        'instance-lifecycle': 'capacity-block',
      }),
    );

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 1, deleted: 1, deletedNodeClaims: ['reserved-1'] });
    expect(await deleting(t.client, 'reserved-1')).toBe(true);
    expect(t.reservationCapacity.remaining('cr-0a1')).toBe(0);
    expect(t.reservationCapacity.remaining('cr-0b2')).toBe(1);
    expect(t.unavailableOfferings.list()).toEqual([]);
    expect(t.client.events.map((e) => `${e.involved.kind} ${e.reason}`)).toEqual([
      'NodeClaim CapacityReservationInterrupted',
      'Node CapacityReservationInterrupted',
      'NodeClaim TerminatingOnInterruption',
      'Node TerminatingOnInterruption',
    ]);
    expect(t.metrics.seen.disrupted).toEqual([['reserved-1', 'capacity_reservation_interrupted']]);
  });

  it('only records an event for a rebalance recommendation', async () => {
    const url = await newQueue();
    const t = setup(url);
    await launched(t.client, 'spot-2', 'i-0b1');
    await send(url, rebalance('i-0b1'));

    expect(await t.controller.reconcile()).toMatchObject({
      received: 1,
      deleted: 1,
      deletedNodeClaims: [],
    });
    expect(await deleting(t.client, 'spot-2')).toBe(false);
    expect(t.unavailableOfferings.list()).toEqual([]);
    expect(t.client.events.map((e) => [e.involved.kind, e.type, e.reason])).toEqual([
      ['NodeClaim', 'Normal', 'SpotRebalanceRecommendation'],
      ['Node', 'Normal', 'SpotRebalanceRecommendation'],
    ]);
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 0 });
    expect(t.metrics.seen.received).toEqual(['rebalance_recommendation']);
  });

  it('deletes every affected NodeClaim of an EC2 scheduled change and ignores other Health categories', async () => {
    const url = await newQueue();
    const t = setup(url);
    await launched(t.client, 'a', 'i-0c1');
    await launched(t.client, 'b', 'i-0c2');
    await launched(t.client, 'c', 'i-0c3');
    await send(url, scheduledChange(['i-0c1', 'i-0c2']));
    await send(url, scheduledChange(['i-0c3'], 'accountNotification'));

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 2, deleted: 2, malformed: 0 });
    expect([...pass.deletedNodeClaims].sort()).toEqual(['a', 'b']);
    expect(await deleting(t.client, 'c')).toBe(false);
    expect(t.unavailableOfferings.list()).toEqual([]);
    expect(t.client.events.filter((e) => e.reason === 'InstanceUnhealthy')).toHaveLength(4);
    expect([...t.metrics.seen.received].sort()).toEqual(['no_op', 'scheduled_change']);
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('deletes the NodeClaim of an instance stopping, stopped, shutting down or terminated; other states are ignored', async () => {
    const url = await newQueue();
    const t = setup(url);
    const states = ['stopping', 'stopped', 'shutting-down', 'terminated', 'pending', 'running'];
    for (const [i, state] of states.entries()) {
      await launched(t.client, state, `i-0d${i}`);
      await send(url, stateChange(`i-0d${i}`, state));
    }

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 6, deleted: 6 });
    expect([...pass.deletedNodeClaims].sort()).toEqual([
      'shutting-down',
      'stopped',
      'stopping',
      'terminated',
    ]);
    expect(await deleting(t.client, 'pending')).toBe(false);
    expect(await deleting(t.client, 'running')).toBe(false);
    const reasons = (claim: string) =>
      t.client.events
        .filter((e) => e.involved.kind === 'NodeClaim' && e.involved.name === claim)
        .map((e) => e.reason);
    expect(reasons('stopped')).toEqual(['InstanceStopping', 'TerminatingOnInterruption']);
    expect(reasons('terminated')).toEqual(['InstanceTerminating', 'TerminatingOnInterruption']);
    expect([...t.metrics.seen.disrupted].sort()).toEqual([
      ['shutting-down', 'instance_terminated'],
      ['stopped', 'instance_stopped'],
      ['stopping', 'instance_stopped'],
      ['terminated', 'instance_terminated'],
    ]);
    expect(t.unavailableOfferings.list()).toEqual([]);
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('logs, counts and deletes a malformed message and goes on with the rest of the batch', async () => {
    const url = await newQueue();
    const t = setup(url);
    await launched(t.client, 'spot-3', 'i-0e1');
    await send(url, '{"version": "0", "source": "aws.ec2", oops');
    await send(url, eventBridge('aws.ec2', 'EC2 Spot Instance Interruption Warning', {}));
    await send(url, spotWarning('i-0e1'));

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 3, deleted: 3, malformed: 2, failed: 0 });
    expect(pass.deletedNodeClaims).toEqual(['spot-3']);
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 0 });
    expect(t.errors.map((e) => e.message)).toEqual([
      'malformed interruption message; deleting it',
      'malformed interruption message; deleting it',
    ]);
    expect(t.errors.map((e) => e.fields?.['error']).sort()).toEqual([
      'spot interruption warning: detail.instance-id must be a non-empty string',
      expect.stringMatching(/^the body is not JSON/),
    ]);
    expect([...t.metrics.seen.received].sort()).toEqual([
      'malformed',
      'malformed',
      'spot_interrupted',
    ]);
    expect(t.metrics.seen.deleted).toBe(3);
    // The loop goes on: the next pass reads the next message.
    await send(url, rebalance('i-0e1'));
    expect(await t.controller.reconcile()).toMatchObject({ received: 1, deleted: 1 });
  });

  it('deletes and ignores a message about an instance that is not ours', async () => {
    const url = await newQueue();
    const t = setup(url);
    await launched(t.client, 'mine', 'i-0f1');
    await send(url, spotWarning('i-0ffffffffffff'));
    await send(url, stateChange('i-0fffffffffffe', 'terminated'));

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 2, deleted: 2, deletedNodeClaims: [] });
    expect(await deleting(t.client, 'mine')).toBe(false);
    expect(t.unavailableOfferings.list()).toEqual([]);
    expect(t.client.events).toEqual([]);
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('leaves a NodeClaim that is already deleting alone', async () => {
    const url = await newQueue();
    const t = setup(url);
    await launched(t.client, 'going', 'i-0a9');
    await t.client.delete('NodeClaim', { name: 'going' });
    await send(url, spotWarning('i-0a9'));

    const pass = await t.controller.reconcile();

    expect(pass).toMatchObject({ received: 1, deleted: 1, deletedNodeClaims: [] });
    expect(t.metrics.seen.disrupted).toEqual([]);
    expect(t.client.events.map((e) => e.reason)).not.toContain('TerminatingOnInterruption');
  });

  it('leaves a message whose NodeClaim could not be deleted on the queue for another try', async () => {
    const url = await newQueue();
    const memory = new MemoryKubeClient();
    await launched(memory, 'stuck', 'i-0aa');
    const refusing: KubeClient = Object.assign(Object.create(memory) as KubeClient, {
      delete: async () => {
        throw new Error('the API server is unavailable');
      },
      list: memory.list.bind(memory),
      recordEvent: memory.recordEvent.bind(memory),
    });
    const t = setup(url, refusing);
    await send(url, spotWarning('i-0aa'));

    expect(await t.controller.reconcile()).toMatchObject({ received: 1, deleted: 0, failed: 1 });
    expect(await onQueue(url)).toEqual({ visible: 0, inFlight: 1 });
    expect(t.errors).toMatchObject([
      {
        message: 'acting on an interruption message failed; it stays on the queue',
        fields: { nodeClaim: 'stuck', error: 'the API server is unavailable' },
      },
    ]);
  });

  it('finds the queue by name, and names it when it does not exist', async () => {
    const t = setup(aws.seed.interruptionQueue.name);
    expect(aws.seed.interruptionQueue.name).toBe('intr');
    await send(aws.seed.interruptionQueue.url, rebalance('i-0bb'));
    expect(await t.controller.reconcile()).toMatchObject({ received: 1, deleted: 1 });

    const missing = setup('no-such-queue');
    await expect(missing.controller.reconcile()).rejects.toThrow(
      /^interruption queue no-such-queue: resolving the queue URL: .*QueueDoesNotExist|NonExistentQueue/,
    );
  });

  it('backs off after a failed receive, doubling from 1 s', async () => {
    const url = await newQueue();
    const t = setup(url);
    aws.faults.error('sqs', 'ReceiveMessage', 'AccessDenied', 'not authorized', 403, 2);

    await expect(t.controller.reconcile()).rejects.toThrow(/receiving messages: AccessDenied/);
    expect(await t.controller.reconcile()).toMatchObject({ skipped: true });
    t.clock.advance(1);
    await expect(t.controller.reconcile()).rejects.toThrow(/AccessDenied/);
    t.clock.advance(1);
    expect(await t.controller.reconcile()).toMatchObject({ skipped: true });
    t.clock.advance(1);
    await send(url, rebalance('i-0cc'));
    expect(await t.controller.reconcile()).toMatchObject({ received: 1, deleted: 1 });
  });

  it('returns from the long poll at once when stopped', async () => {
    const url = await newQueue();
    const clock = new ManualClock();
    const controller = new InterruptionController({
      client: new MemoryKubeClient({ clock }),
      queue: new SqsInterruptionQueue({ sqs: sqs(), queue: url }),
      unavailableOfferings: new UnavailableOfferings(clock),
      clock,
    });
    const task = controller.task();
    const pass = task.run();
    await new Promise((r) => setTimeout(r, 300));
    const stoppedAt = Date.now();
    task.stop?.();
    expect(await pass).toMatchObject({ received: 0 });
    // The 20-second wait was cut short.
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  });
});
