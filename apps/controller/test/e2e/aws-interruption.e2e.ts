/**
 * `--provider aws --interruption-queue` end to end: the operator (in-process) polls the
 * emulator's SQS queue (moto behind tools/aws-emulator) through the real SDK. A malformed message
 * is logged and deleted and the loop goes on; a spot interruption warning for the running
 * instance of a Deployment's pods deletes its NodeClaim, marks its spot offering unavailable, and
 * a replacement NodeClaim on another offering launches and the pods' replacements are bound there
 * before the old instance is terminated. The pods take their 45 s grace period to stop (the
 * emulated kubelet lets them use all of it), as a workload does within the two-minute warning;
 * the replacement's launch, registration and binding must fit in that window (about 2 s when
 * it passes).
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AwsEmulator } from '@karpenter-ts/aws-emulator';
import type { Node, NodeClaim, Pod } from '@karpenter-ts/api';
import type { KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  parseOptions,
  startOperator,
  type RunningOperator,
} from '../../src/index.js';
import { AwsHarness } from './aws-harness.js';
import { componentLogLines, eventually, logSink, type List } from './support.js';

const CLUSTER = 'aws-intr';
const NAME = 'intr';
const TYPES = ['m5.large', 'm5.xlarge'];

let harness: AwsHarness;
let aws: AwsEmulator;
let api: KubeConnection;
let operator: RunningOperator;
const logLines: string[] = [];

const queueUrl = () => aws.seed.interruptionQueue.url;
const sendToQueue = (body: string) =>
  aws.clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: body }));
async function queueEmpty(): Promise<boolean> {
  const out = await aws.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl(),
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    out.Attributes?.ApproximateNumberOfMessages === '0' &&
    out.Attributes?.ApproximateNumberOfMessagesNotVisible === '0'
  );
}
const logged = (message: string) =>
  logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.message === message);

const pods = async () =>
  (
    await api.request<List<Pod>>(
      'GET',
      `/api/v1/namespaces/${NAME}/pods?labelSelector=app%3D${NAME}`,
    )
  ).items;
const nodeClaims = async () =>
  (
    await api.request<List<NodeClaim>>(
      'GET',
      `/apis/karpenter.sh/v1/nodeclaims?labelSelector=karpenter.sh%2Fnodepool%3D${NAME}`,
    )
  ).items;
async function instanceState(id: string): Promise<string> {
  const out = await aws.clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  return out.Reservations?.[0]?.Instances?.[0]?.State?.Name ?? '';
}

beforeAll(async () => {
  harness = await AwsHarness.start(CLUSTER);
  ({ api, aws } = harness);
  harness.exportCredentials();
  // Spot prices by zone, a cheapest: the first launch is m5.large spot in zone a.
  const zones = aws.seed.subnets.map((s) => s.zone).sort();
  aws.spotPrices.set(
    zones.flatMap((zone, i) => [
      { instanceType: 'm5.large', zone, price: 0.03 + i * 0.005 },
      { instanceType: 'm5.xlarge', zone, price: 0.08 + i * 0.01 },
    ]),
  );
  const parsed = parseOptions(
    [
      ...harness.controllerArgs(),
      '--interruption-queue',
      aws.seed.interruptionQueue.name,
      '--metrics-port',
      '0',
      '--health-probe-port',
      '0',
    ],
    {},
  );
  if (parsed.kind !== 'run') throw new Error(parsed.output);
  operator = await startOperator(parsed.options, {
    version: 'e2e',
    handleSignals: false,
    logger: createLogger({
      level: 'info',
      outputPaths: ['stdout'],
      commit: 'e2e',
      stream: logSink(logLines),
    }),
    env: harness.env,
  });
  await harness.createNodePool(NAME, TYPES, ['spot']);
});

afterAll(async () => {
  const ignore = () => {};
  await api
    ?.request('DELETE', `/apis/apps/v1/namespaces/${NAME}/deployments/${NAME}`)
    .catch(ignore);
  await api
    ?.request('DELETE', `/api/v1/namespaces/${NAME}/pods`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
    })
    .catch(ignore);
  for (const c of (await nodeClaims().catch(() => [])) ?? [])
    await api
      .request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`)
      .catch(ignore);
  await eventually(
    'the node claims to go',
    async () => (await nodeClaims()).length === 0,
    60_000,
  ).catch(ignore);
  await harness?.deleteNodePool(NAME);
  await operator?.shutdown('end of test');
  await harness?.stop();
});

describe('karpenter-ts-controller --provider aws --interruption-queue', () => {
  it('logs and deletes a malformed message, and goes on polling', async () => {
    await sendToQueue('{"version": "0", "detail-type": truncated');
    await eventually('the malformed message to be deleted', queueEmpty, 30_000);
    expect(logged('malformed interruption message; deleting it')).toMatchObject([
      { level: 'ERROR', queue: CLUSTER, error: expect.stringMatching(/^the body is not JSON/) },
    ]);
    // The loop goes on: a message about an instance that is not ours is read and deleted too.
    await sendToQueue(
      JSON.stringify({
        version: '0',
        source: 'aws.ec2',
        'detail-type': 'EC2 Instance Rebalance Recommendation',
        time: new Date().toISOString(),
        detail: { 'instance-id': 'i-0000000000000000f' },
      }),
    );
    await eventually('the next message to be deleted', queueEmpty, 30_000);
  });

  it('replaces the node of a spot interruption warning: the pods are bound on the replacement before the old instance terminates', async () => {
    await eventually(
      'the default service account',
      () => api.request('GET', `/api/v1/namespaces/${NAME}/serviceaccounts/default`),
      30_000,
    );
    await api.request('POST', `/apis/apps/v1/namespaces/${NAME}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: NAME, namespace: NAME },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: NAME } },
          template: {
            metadata: { labels: { app: NAME } },
            spec: {
              nodeSelector: { 'karpenter.sh/nodepool': NAME },
              terminationGracePeriodSeconds: 30,
              containers: [
                {
                  name: 'pause',
                  image: 'registry.k8s.io/pause:3.10',
                  resources: { requests: { cpu: '250m', memory: '256Mi' } },
                },
              ],
            },
          },
        },
      },
    });
    const first = await eventually(
      'both pods bound on one registered node claim',
      async () => {
        const [ps, claims] = await Promise.all([pods(), nodeClaims()]);
        const claim = claims[0];
        const bound = ps.length === 2 && ps.every((p) => p.spec?.nodeName);
        return bound && claims.length === 1 && claim?.status?.nodeName ? claim : undefined;
      },
      60_000,
    );
    const oldNode = first.status?.nodeName ?? '';
    const oldInstance = /\/(i-[0-9a-z]+)$/.exec(first.status?.providerID ?? '')?.[1] ?? '';
    const oldType = first.metadata.labels?.['node.kubernetes.io/instance-type'];
    const oldZone = first.metadata.labels?.['topology.kubernetes.io/zone'];
    expect(first.metadata.labels?.['karpenter.sh/capacity-type']).toBe('spot');
    expect(await instanceState(oldInstance)).toBe('running');

    // Watch, from the warning on, when the pods are all bound elsewhere and when the old
    // instance stops running.
    let boundElsewhereAt: number | undefined;
    let replacementNode: string | undefined;
    let terminatedAt: number | undefined;
    let watching = true;
    // What the watcher saw change, for the failure message: a CI run once saw no replacement.
    const timeline: string[] = [];
    const watcher = (async () => {
      while (watching) {
        const [ps, state] = await Promise.all([pods(), instanceState(oldInstance)]);
        const live = ps.filter((p) => !p.metadata?.deletionTimestamp);
        if (
          boundElsewhereAt === undefined &&
          live.length === 2 &&
          live.every((p) => p.spec?.nodeName && p.spec.nodeName !== oldNode)
        ) {
          boundElsewhereAt = Date.now();
          replacementNode = live[0]?.spec?.nodeName;
        }
        if (terminatedAt === undefined && state !== 'running' && state !== 'pending')
          terminatedAt = Date.now();
        const seen = `${state} ${ps.map((p) => `${p.metadata?.name}@${p.spec?.nodeName ?? '-'}${p.metadata?.deletionTimestamp ? '(deleting)' : ''}`).join(' ')}`;
        if (seen !== timeline.at(-1)?.slice(25))
          timeline.push(`${new Date().toISOString()} ${seen}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    await sendToQueue(
      JSON.stringify({
        version: '0',
        id: 'e2e-spot-warning',
        'detail-type': 'EC2 Spot Instance Interruption Warning',
        source: 'aws.ec2',
        account: '123456789012',
        time: new Date().toISOString(),
        region: aws.region,
        resources: [`arn:aws:ec2:${oldZone}:instance/${oldInstance}`],
        detail: { 'instance-id': oldInstance, 'instance-action': 'terminate' },
      }),
    );
    try {
      await eventually('the old instance to terminate', async () => terminatedAt, 120_000);
    } finally {
      watching = false;
      await watcher;
    }

    if (boundElsewhereAt === undefined) {
      const nodes = (await api.request<List<Node>>('GET', '/api/v1/nodes')).items.map(
        (n) =>
          `${n.metadata?.name} taints=${(n.spec?.taints ?? []).map((t) => t.key).join(',')} ready=${n.status?.conditions?.find((c) => c.type === 'Ready')?.status}`,
      );
      const scheduled = (await pods()).map(
        (p) =>
          `${p.metadata?.name}: ${p.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? ''}`,
      );
      const scheduler = componentLogLines(harness.kubeconfig, 'kube-scheduler', `${NAME}/`);
      const message = `the pods were not bound on the replacement; seen:\n${timeline.join('\n')}\nnodes:\n${nodes.join('\n')}\npods:\n${scheduled.join('\n')}\nkube-scheduler log:\n${scheduler.join('\n')}\nkubelet errors: ${harness.kubelets.errors.join('; ')}\ncontroller log:\n${logLines.slice(-40).join('\n')}`;
      expect.fail(message);
    }
    expect(boundElsewhereAt!).toBeLessThan(terminatedAt!);
    const claims = await nodeClaims();
    const replacement = claims.find((c) => c.metadata.name !== first.metadata.name);
    expect(replacement?.status?.nodeName).toBe(replacementNode);
    // The interrupted offering is unavailable, so the replacement is on another one.
    expect(operator.aws!.unavailableOfferings.list()).toContainEqual({
      capacityType: 'spot',
      instanceType: oldType,
      zone: oldZone,
    });
    expect([
      replacement?.metadata.labels?.['node.kubernetes.io/instance-type'],
      replacement?.metadata.labels?.['topology.kubernetes.io/zone'],
    ]).not.toEqual([oldType, oldZone]);
    expect(logged('initiating delete from interruption message')).toHaveLength(1);
    expect(await queueEmpty()).toBe(true);
    await eventually(
      'the old node claim to go',
      async () => (await nodeClaims()).every((c) => c.metadata.name !== first.metadata.name),
      30_000,
    );
    expect(harness.kubelets.errors).toEqual([]);
    console.info(
      `interrupted ${oldType}/${oldZone}; replacement ${replacement?.metadata.labels?.['node.kubernetes.io/instance-type']}/${replacement?.metadata.labels?.['topology.kubernetes.io/zone']}; pods bound ${((terminatedAt! - boundElsewhereAt!) / 1000).toFixed(1)} s before the old instance terminated`,
    );
  });
});
