/**
 * `--provider aws` end to end: the operator (in-process) resolves an EC2NodeClass against the
 * AWS emulator (moto behind tools/aws-emulator) through the real AWS SDK, launches instances with
 * CreateFleet for pending pods; every launched instance's emulated kubelet registers its Node in
 * the real control plane and the real kube-scheduler binds the pods; scaling to zero and deleting
 * the node claims terminates every instance, and launch template garbage collection leaves none.
 * A capacity error for the cheapest type makes the fleet fall back and fills the
 * unavailable-offerings cache. An EC2NodeClass whose subnet selector matches nothing is
 * `Ready=False` (`SubnetsNotFound`) and its NodePool launches nothing. Deleting an EC2NodeClass
 * waits for its node claims (the `karpenter.k8s.aws/termination` finalizer), then removes its
 * launch templates and the instance profile made for its role.
 */
import { DescribeLaunchTemplatesCommand } from '@aws-sdk/client-ec2';
import { listInstanceProfiles } from '@karpenter-ts/provider-aws';
import type { AwsEmulator } from '@karpenter-ts/aws-emulator';
import type { KubeConnection } from '@karpenter-ts/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  parseOptions,
  startOperator,
  type RunningOperator,
} from '../../src/index.js';
import { AwsHarness } from './aws-harness.js';
import type { AwsKubelets } from './aws-kubelet.js';
import { eventually, logSink, Workload } from './support.js';

const CLUSTER = 'aws-e2e';
const TYPES = ['m5.large', 'm5.xlarge', 'c5.xlarge'];

let harness: AwsHarness;
let aws: AwsEmulator;
let api: KubeConnection;
let kubelets: AwsKubelets;
let operator: RunningOperator;
const logLines: string[] = [];

const createPool = (name: string, discovery: string, capacityTypes: string[]) =>
  harness.createNodePool(name, TYPES, capacityTypes, discovery);
const activeInstances = () => harness.activeInstances();

beforeAll(async () => {
  harness = await AwsHarness.start(CLUSTER);
  ({ api, aws, kubelets } = harness);
  harness.exportCredentials();
  const parsed = parseOptions(
    [
      '--kubeconfig',
      harness.kubeconfig,
      '--provider',
      'aws',
      '--cluster-name',
      CLUSTER,
      '--leader-election-namespace',
      'default',
      '--leader-election-name',
      'karpenter-aws-e2e',
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
});

afterAll(async () => {
  // Leave the cluster as the next suite expects it: no NodePool another provider cannot serve.
  await harness?.deleteNodePool('aws');
  await harness?.deleteNodePool('nosubnet');
  await operator?.shutdown('end of test');
  await harness?.stop();
});

describe('karpenter-ts-controller --provider aws against the AWS emulator', () => {
  it('marks the EC2NodeClass Ready with its subnets, security groups, AMIs and instance profile', async () => {
    await createPool('aws', CLUSTER, ['on-demand']);
    const status = await eventually(
      'the EC2NodeClass to be Ready',
      async () => {
        const nc = await api.request<{
          status?: Record<string, unknown> & { conditions?: { type: string; status: string }[] };
        }>('GET', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/aws');
        return nc.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
          ? nc.status
          : undefined;
      },
      30_000,
    );
    expect((status['subnets'] as { id: string }[]).map((s) => s.id).sort()).toEqual(
      aws.seed.subnets.map((s) => s.id).sort(),
    );
    expect(status['securityGroups']).toEqual([
      { id: aws.seed.nodeSecurityGroupId, name: `${CLUSTER}-node` },
    ]);
    expect((status['amis'] as { id: string }[]).map((a) => a.id)).toContain(
      aws.seed.amis.al2023X86,
    );
    expect(status['instanceProfile']).toMatch(new RegExp(`^${CLUSTER}_\\d+$`));
  });

  it('launches instances of the pool types; their nodes register and every pod is bound', async () => {
    const w = new Workload(api, 'aws', 4);
    await w.poolReady();
    await w.deploy();
    const pods = await w.allPodsBound(60_000);
    const claims = await eventually(
      'every node claim to be registered',
      async () => {
        const list = await w.nodeClaims();
        return list.length > 0 &&
          list.every((c) =>
            c.status?.conditions?.some((x) => x.type === 'Registered' && x.status === 'True'),
          )
          ? list
          : undefined;
      },
      // Registration is one lifecycle pass after the Node appears; generous for 2 loaded cores.
      60_000,
    );
    const instances = await activeInstances();
    expect(instances).toHaveLength(claims.length);
    expect(kubelets.errors).toEqual([]);
    for (const claim of claims) {
      const instance = instances.find((i) =>
        claim.status?.providerID?.endsWith(`/${i.InstanceId}`),
      );
      expect(instance, `instance of ${claim.metadata.name}`).toBeDefined();
      expect(TYPES).toContain(instance?.InstanceType);
      expect(claim.metadata.labels?.['node.kubernetes.io/instance-type']).toBe(
        instance?.InstanceType,
      );
      expect(claim.metadata.labels?.['topology.kubernetes.io/zone']).toBe(
        instance?.Placement?.AvailabilityZone,
      );
      expect(instance?.Tags).toContainEqual({
        Key: 'karpenter.sh/nodeclaim',
        Value: claim.metadata.name,
      });
      expect(instance?.ImageId).toBe(aws.seed.amis.al2023X86);
    }
    const nodes = await w.nodes();
    const nodeNames = new Set(nodes.map((n) => n.metadata.name));
    expect(pods.every((p) => nodeNames.has(p.spec?.nodeName ?? ''))).toBe(true);
    console.info(
      `${pods.length} pods on ${instances.length} instances: ${instances.map((i) => `${i.InstanceType}/${i.Placement?.AvailabilityZone}`).join(', ')}`,
    );
  });

  it('terminates every instance when the pods go and the node claims are deleted; no launch template is left', async () => {
    await api.request('PATCH', '/apis/apps/v1/namespaces/aws/deployments/aws', {
      body: { spec: { replicas: 0 } },
      contentType: 'application/merge-patch+json',
    });
    const w = new Workload(api, 'aws', 0);
    await eventually('the pods to go', async () => (await w.pods()).length === 0, 30_000);
    for (const c of await w.nodeClaims())
      await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`);
    await eventually(
      'the node claims to go',
      async () => (await w.nodeClaims()).length === 0,
      60_000,
    );
    expect(await activeInstances()).toEqual([]);
    // The periodic pass runs every 2 minutes; run it now (templates older than 0 s).
    await operator.aws!.garbageCollectLaunchTemplates(0);
    const lts = await aws.clients.ec2.send(new DescribeLaunchTemplatesCommand({}));
    expect(lts.LaunchTemplates ?? []).toEqual([]);
  });

  it('falls back from a type out of capacity and caches the unavailable offering', async () => {
    aws.faults.capacity({ instanceType: 'm5.large' });
    await api.request('PATCH', '/apis/apps/v1/namespaces/aws/deployments/aws', {
      body: { spec: { replicas: 1 } },
      contentType: 'application/merge-patch+json',
    });
    const w = new Workload(api, 'aws', 1);
    await w.allPodsBound(60_000);
    const instances = await activeInstances();
    expect(instances.map((i) => i.InstanceType)).not.toContain('m5.large');
    expect(
      operator.aws!.unavailableOfferings.list().some((k) => k.instanceType === 'm5.large'),
    ).toBe(true);
    aws.faults.clear();
  });

  it('deleting the EC2NodeClass waits for its node claims, then removes its launch templates and instance profile', async () => {
    const path = '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/aws';
    const before = await api.request<{
      metadata: { finalizers?: string[] };
      status?: { instanceProfile?: string };
    }>('GET', path);
    expect(before.metadata.finalizers).toEqual(['karpenter.k8s.aws/termination']);
    const profile = before.status?.instanceProfile ?? '';
    // The fallback test's pod is still running on a node launched from this NodeClass.
    const w = new Workload(api, 'aws', 1);
    const claims = await w.nodeClaims();
    expect(claims.length).toBeGreaterThan(0);
    await api.request('DELETE', path);
    await new Promise((r) => setTimeout(r, 3000));
    const waiting = await api.request<{ metadata: { deletionTimestamp?: string } }>('GET', path);
    expect(waiting.metadata.deletionTimestamp).toBeDefined();
    // Nothing new launches for a NodeClass being deleted: the pod stays pending once its node goes.
    const launches = aws.launches.length;
    for (const c of claims)
      await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${c.metadata.name}`);
    await eventually(
      'the EC2NodeClass to go',
      async () =>
        api.request('GET', path).then(
          () => false,
          () => true,
        ),
      60_000,
    );
    expect(await activeInstances()).toEqual([]);
    expect(aws.launches.length).toBe(launches);
    const lts = await aws.clients.ec2.send(
      new DescribeLaunchTemplatesCommand({
        Filters: [{ Name: 'tag:karpenter.k8s.aws/ec2nodeclass', Values: ['aws'] }],
      }),
    );
    expect(lts.LaunchTemplates ?? []).toEqual([]);
    expect(profile).not.toBe('');
    const profiles = await listInstanceProfiles(aws.clients.iam, '/');
    expect(profiles.map((p) => p.InstanceProfileName)).not.toContain(profile);
    await w.remove().catch(() => undefined);
  });

  it('an EC2NodeClass whose subnets match nothing is Ready=False (SubnetsNotFound) and its NodePool launches nothing', async () => {
    await createPool('nosubnet', 'nobody', ['on-demand']);
    const ready = await eventually(
      'the EC2NodeClass Ready condition',
      async () => {
        const nc = await api.request<{
          status?: { conditions?: { type: string; status: string; reason?: string }[] };
        }>('GET', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/nosubnet');
        return nc.status?.conditions?.find((c) => c.type === 'Ready');
      },
      30_000,
    );
    expect(ready).toMatchObject({ status: 'False', reason: 'SubnetsNotFound' });
    const launches = aws.launches.length;
    const w = new Workload(api, 'nosubnet', 1);
    await eventually(
      'the default service account',
      () => api.request('GET', '/api/v1/namespaces/nosubnet/serviceaccounts/default'),
      30_000,
    );
    await w.deploy();
    await new Promise((r) => setTimeout(r, 5000));
    expect(aws.launches.length).toBe(launches);
    expect((await w.pods()).every((p) => !p.spec?.nodeName)).toBe(true);
  });
});
