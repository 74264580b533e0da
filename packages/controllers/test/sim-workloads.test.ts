/**
 * The simulator's workload stand-ins: pods that finish their work, Jobs, DaemonSets and pod GC.
 */
import type { DaemonSet, Node, Pod } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import {
  ManualClock,
  MemoryKubeClient,
  RunSecondsAnnotation,
  SimDaemonSets,
  SimJobLabel,
  SimJobs,
  SimPodLifecycle,
  SimReplicaSets,
} from '../src/index.js';

function env() {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  return { clock, client };
}

function node(
  name: string,
  o: { labels?: Record<string, string>; taints?: Node['spec'] } = {},
): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(o.labels ?? {}) } },
    spec: { ...(o.taints ?? {}) },
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
  };
}

function template(runSeconds?: number): Pick<Pod, 'metadata' | 'spec'> {
  return {
    metadata: {
      labels: { app: 'batch' },
      ...(runSeconds === undefined
        ? {}
        : { annotations: { [RunSecondsAnnotation]: String(runSeconds) } }),
    },
    spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1' } } }] },
  };
}

async function bindAll(client: MemoryKubeClient, nodeName: string): Promise<void> {
  for (const p of await client.list('Pod'))
    if (!p.spec?.nodeName)
      await client.bind({ namespace: 'default', name: p.metadata?.name ?? '' }, nodeName);
}

describe('SimPodLifecycle', () => {
  it('completes a pod its run time after it was bound, not after it was created', async () => {
    const { clock, client } = env();
    const lifecycle = new SimPodLifecycle({ client, clock });
    lifecycle.start();
    await client.create('Pod', {
      metadata: { name: 'p', ...template(60).metadata },
      spec: template(60).spec,
    });
    clock.advance(30);
    await bindAll(client, 'n1');
    expect(lifecycle.nextCompletionMs()).toBe(clock.now() + 60_000);
    clock.advance(59);
    expect(await lifecycle.reconcile()).toEqual([]);
    clock.advance(1);
    expect((await lifecycle.reconcile()).map((p) => p.metadata?.name)).toEqual(['p']);
    expect((await client.get('Pod', { name: 'p' }))?.status?.phase).toBe('Succeeded');
    expect(lifecycle.nextCompletionMs()).toBeUndefined();
  });

  it('forgets a pod deleted before it completes', async () => {
    const { clock, client } = env();
    const lifecycle = new SimPodLifecycle({ client, clock });
    lifecycle.start();
    await client.create('Pod', {
      metadata: { name: 'p', ...template(60).metadata },
      spec: template(60).spec,
    });
    await bindAll(client, 'n1');
    await client.delete('Pod', { name: 'p' });
    expect(lifecycle.runningCount()).toBe(0);
  });

  it('leaves pods without a run time running', async () => {
    const { clock, client } = env();
    const lifecycle = new SimPodLifecycle({ client, clock });
    lifecycle.start();
    await client.create('Pod', { metadata: { name: 'web' }, spec: template().spec });
    await bindAll(client, 'n1');
    clock.advance(86_400);
    expect(await lifecycle.reconcile()).toEqual([]);
  });
});

describe('SimJobs', () => {
  it('runs parallelism pods at a time until completions have succeeded, deleting finished pods', async () => {
    const { clock, client } = env();
    const lifecycle = new SimPodLifecycle({ client, clock });
    lifecycle.start();
    const jobs = new SimJobs(client);
    jobs.add({ name: 'etl', template: template(10), completions: 3, parallelism: 2 });
    expect((await jobs.reconcile()).created).toBe(2);
    await bindAll(client, 'n1');
    clock.advance(10);
    await lifecycle.reconcile();
    expect(await jobs.reconcile()).toEqual({ created: 1, succeeded: 2, lost: 0 });
    await bindAll(client, 'n1');
    clock.advance(10);
    await lifecycle.reconcile();
    expect(await jobs.reconcile()).toEqual({ created: 0, succeeded: 1, lost: 0 });
    expect(await client.list('Pod')).toEqual([]);
    expect(jobs.activeCount()).toBe(0);
  });

  it('replaces an evicted pod, and labels and owns its pods', async () => {
    const { client } = env();
    const jobs = new SimJobs(client);
    jobs.add({ name: 'etl', template: template(10), completions: 1, parallelism: 1 });
    await jobs.reconcile();
    const [first] = await client.list('Pod');
    expect(first?.metadata?.labels?.[SimJobLabel]).toBe('etl');
    expect(first?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Job', name: 'etl' });
    await client.evict({ namespace: 'default', name: first?.metadata?.name ?? '' });
    expect(await jobs.reconcile()).toEqual({ created: 1, succeeded: 0, lost: 1 });
  });

  it('does not bring back a lost bare pod', async () => {
    const { client } = env();
    const jobs = new SimJobs(client);
    jobs.add({
      name: 'row-1',
      template: template(10),
      completions: 1,
      parallelism: 1,
      owner: null,
      replaceLost: false,
    });
    await jobs.reconcile();
    const [first] = await client.list('Pod');
    expect(first?.metadata?.ownerReferences).toBeUndefined();
    await client.delete('Pod', { name: first?.metadata?.name ?? '' });
    expect(await jobs.reconcile()).toEqual({ created: 0, succeeded: 0, lost: 1 });
    expect(jobs.activeCount()).toBe(0);
  });
});

describe('SimDaemonSets', () => {
  const daemonSet = (
    spec: NonNullable<DaemonSet['spec']>['template']['spec'] = { containers: [] },
  ): DaemonSet => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'kube-system' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec },
    },
  });

  it('puts one bound pod on every node it fits, including a node still carrying the unregistered taint', async () => {
    const { client } = env();
    await client.create('DaemonSet', daemonSet());
    await client.create('Node', node('a'));
    await client.create(
      'Node',
      node('b', {
        taints: { taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] },
      }),
    );
    const ds = new SimDaemonSets(client);
    expect(await ds.reconcile()).toEqual({ created: 2, deleted: 0 });
    expect(await ds.reconcile()).toEqual({ created: 0, deleted: 0 });
    const pods = await client.list('Pod');
    expect(pods.map((p) => [p.spec?.nodeName, p.status?.phase]).sort()).toEqual([
      ['a', 'Running'],
      ['b', 'Running'],
    ]);
  });

  it('skips nodes whose taints it does not tolerate or whose labels its selector rejects', async () => {
    const { client } = env();
    await client.create('DaemonSet', daemonSet({ containers: [], nodeSelector: { pool: 'gpu' } }));
    await client.create('Node', node('cpu', { labels: { pool: 'cpu' } }));
    await client.create(
      'Node',
      node('gpu', {
        labels: { pool: 'gpu' },
        taints: { taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }] },
      }),
    );
    await client.create('Node', node('gpu-ok', { labels: { pool: 'gpu' } }));
    await new SimDaemonSets(client).reconcile();
    expect((await client.list('Pod')).map((p) => p.spec?.nodeName)).toEqual(['gpu-ok']);
  });

  it('deletes pods bound to a node that is gone', async () => {
    const { client } = env();
    await client.create('DaemonSet', daemonSet());
    await client.create('Node', node('a'));
    const ds = new SimDaemonSets(client);
    await ds.reconcile();
    await client.delete('Node', { name: 'a' });
    expect(await ds.reconcile()).toEqual({ created: 0, deleted: 1 });
    expect(await client.list('Pod')).toEqual([]);
  });
});

describe('SimReplicaSets', () => {
  const web = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } };

  it('counts only the pods of each workload, told apart by namespace and owner name', async () => {
    const { client } = env();
    const sets = new SimReplicaSets(client);
    sets.add({ name: 'web', namespace: 'a', template: web, replicas: 2 });
    sets.add({ name: 'web', namespace: 'b', template: web, replicas: 1 });
    sets.add({ name: 'api', namespace: 'a', template: web, replicas: 1 });
    expect(await sets.reconcile()).toEqual({ created: 4, deleted: 0 });
    expect(await sets.reconcile()).toEqual({ created: 0, deleted: 0 });
    sets.scale('web', 0, 'a');
    expect(await sets.reconcile()).toEqual({ created: 0, deleted: 2 });
    const left = (await client.list('Pod')).map(
      (p) => `${p.metadata?.namespace}/${p.metadata?.ownerReferences?.[0]?.name}`,
    );
    expect(left.sort()).toEqual(['a/api', 'b/web']);
  });

  it('deletes pending pods first, then the newest, on a scale-down', async () => {
    const { clock, client } = env();
    const sets = new SimReplicaSets(client);
    sets.add({ name: 'web', template: web, replicas: 1 });
    await sets.reconcile();
    clock.advance(10);
    sets.scale('web', 3);
    await sets.reconcile();
    const [oldest, , newest] = (await client.list('Pod')).map((p) => p.metadata!.name!);
    await client.bind({ namespace: 'default', name: oldest! }, 'n1');
    await client.bind({ namespace: 'default', name: newest! }, 'n1');
    sets.scale('web', 1);
    expect(await sets.reconcile()).toEqual({ created: 0, deleted: 2 });
    expect((await client.list('Pod')).map((p) => p.metadata!.name)).toEqual([oldest]);
  });
});
