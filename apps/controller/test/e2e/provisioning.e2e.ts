/**
 * The operator against a real control plane: the real kube-scheduler binds pending pods to the
 * Nodes the sim provider's kwok-like mode registers for the NodeClaims our controllers create;
 * scaling down and deleting the NodeClaims drains and removes everything again.
 */
import type { NodePool, Pod } from '@karpenter-ts/api';
import { kwokInstanceTypes, type SimCloudProvider } from '@karpenter-ts/cloudprovider';
import { connect, installCrds, karpenterCrdFiles, type KubeConnection } from '@karpenter-ts/kube';
import { resourceListFromQuantities, Scheduler } from '@karpenter-ts/scheduling';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createLogger,
  parseOptions,
  startOperator,
  type RunningOperator,
} from '../../src/index.js';
import { eventually, logSink, type List } from './support.js';

const simCrd = new URL('../../crds/karpenter.sim_simnodeclasses.yaml', import.meta.url).pathname;
const ns = 'default';
const replicas = 100;

let api: KubeConnection;
let operator: RunningOperator;
const logLines: string[] = [];

const get = <T>(path: string) => api.request<T>('GET', path);

const pool: NodePool = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'e2e' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: 'e2e' },
        requirements: [
          { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          // Nodes of at most 16 cores, so 100 one-core pods need several.
          { key: 'karpenter.kwok.sh/instance-cpu', operator: 'Lt', values: ['17'] },
        ],
      },
    },
  },
};

const podTemplate = {
  metadata: { labels: { app: 'inflate' } },
  spec: {
    terminationGracePeriodSeconds: 30,
    containers: [
      {
        name: 'inflate',
        image: 'registry.k8s.io/pause:3.10',
        resources: { requests: { cpu: '1', memory: '1Gi' } },
      },
    ],
  },
};

beforeAll(async () => {
  const kubeconfig = inject('kubeconfig');
  api = connect({ kubeconfig });
  await installCrds(api, [...karpenterCrdFiles(), simCrd]);
  const parsed = parseOptions(
    [
      '--kubeconfig',
      kubeconfig,
      '--leader-election-namespace',
      ns,
      '--metrics-port',
      '0',
      '--health-probe-port',
      '0',
      // NodeOverlays on, so the overlay controller runs against the real API (see its spec).
      '--feature-gates',
      'NodeOverlay=true',
    ],
    {},
  );
  if (parsed.kind !== 'run') throw new Error(parsed.output);
  const stream = logSink(logLines);
  operator = await startOperator(parsed.options, {
    version: 'e2e',
    handleSignals: false,
    logger: createLogger({ level: 'info', outputPaths: ['stdout'], commit: 'e2e', stream }),
  });
});

afterAll(async () => {
  await operator?.shutdown('end of test');
});

describe('karpenter-ts-controller on a real control plane (sim provider, kwok-like nodes)', () => {
  it('reports ready once caches synced and the CRDs resolve', async () => {
    await eventually(
      'readyz',
      async () => (await fetch(`http://127.0.0.1:${operator.healthPort}/readyz`)).status === 200,
      30_000,
    );
    await eventually(
      'the leader election lease',
      () => Promise.resolve(operator.manager !== undefined),
      30_000,
    );
  });

  it('NodeOverlay gate on: overlays get ValidationSucceeded and Ready through the status subresource, a same-weight rival Conflict', async () => {
    // Both price c-32x, which the pool's requirements (at most 16 cores) never launch: the
    // provisioning below is not changed by them.
    const overlay = (name: string) => ({
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name },
      spec: {
        weight: 5,
        requirements: [
          {
            key: 'node.kubernetes.io/instance-type',
            operator: 'In',
            values: ['c-32x-amd64-linux'],
          },
        ],
        price: '0.01',
      },
    });
    await api.request('POST', '/apis/karpenter.sim/v1/simnodeclasses', {
      body: { apiVersion: 'karpenter.sim/v1', kind: 'SimNodeClass', metadata: { name: 'e2e' } },
    });
    await api.request('POST', '/apis/karpenter.sh/v1/nodepools', { body: pool });
    for (const name of ['e2e-a', 'e2e-b'])
      await api.request('POST', '/apis/karpenter.sh/v1alpha1/nodeoverlays', {
        body: overlay(name),
      });
    type Overlay = {
      status?: { conditions?: { type: string; status: string; reason?: string }[] };
    };
    const ready = (o: Overlay) => o.status?.conditions?.find((c) => c.type === 'Ready');
    // Name descending: e2e-b applies, e2e-a conflicts with it.
    const [a, b] = await eventually(
      'both overlays to have a Ready condition',
      async () => {
        const got = await Promise.all(
          ['e2e-a', 'e2e-b'].map((n) =>
            get<Overlay>(`/apis/karpenter.sh/v1alpha1/nodeoverlays/${n}`),
          ),
        );
        return got.every((o) => ready(o) !== undefined) ? got : undefined;
      },
      30_000,
    );
    expect(ready(b!)).toMatchObject({ status: 'True' });
    expect(ready(a!)).toMatchObject({ status: 'False', reason: 'Conflict' });
  });

  it('launches nodes for 100 pending pods; the real kube-scheduler binds every pod', async () => {
    // The SimNodeClass and NodePool were created by the NodeOverlay spec above.
    await eventually(
      'the NodePool to be Ready',
      async () =>
        (await get<NodePool>('/apis/karpenter.sh/v1/nodepools/e2e')).status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      30_000,
    );
    await eventually(
      'the default service account',
      () => get(`/api/v1/namespaces/${ns}/serviceaccounts/default`),
      30_000,
    );

    await api.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'inflate', namespace: ns },
        spec: { replicas, selector: { matchLabels: { app: 'inflate' } }, template: podTemplate },
      },
    });

    // Every pod bound within 30 s of the Deployment's creation.
    const pods = await eventually(
      'every pod to be bound',
      async () => {
        const list = await get<List<Pod>>(
          `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dinflate`,
        );
        return list.items.length === replicas && list.items.every((p) => p.spec?.nodeName)
          ? list.items
          : undefined;
      },
      30_000,
    );
    const nodes = (
      await get<
        List<{
          metadata: { name: string; labels?: Record<string, string> };
          status?: { capacity?: Record<string, string> };
        }>
      >('/api/v1/nodes')
    ).items;
    const claims = (
      await get<List<{ metadata: { name: string } }>>('/apis/karpenter.sh/v1/nodeclaims')
    ).items;
    const usedNodes = new Set(pods.map((p) => p.spec?.nodeName));
    expect(nodes.length).toBeGreaterThan(1);
    expect(claims.map((c) => c.metadata.name).sort()).toEqual(
      nodes.map((n) => n.metadata.name).sort(),
    );
    expect([...usedNodes].every((n) => nodes.some((x) => x.metadata.name === n))).toBe(true);
    for (const node of nodes) {
      expect(node.metadata.labels?.['karpenter.sh/nodepool']).toBe('e2e');
      expect(Number(node.metadata.labels?.['karpenter.kwok.sh/instance-cpu'])).toBeLessThanOrEqual(
        16,
      );
    }

    // The counter reports them on the NodePool (NODES, CPU and MEMORY of `kubectl get -o wide`).
    const capacity = nodes.map((n) => resourceListFromQuantities(n.status?.capacity ?? {}));
    const cpuMillis = capacity.reduce((sum, c) => sum + (c.cpu ?? 0), 0);
    const memoryBytes = capacity.reduce((sum, c) => sum + (c.memory ?? 0), 0);
    expect(cpuMillis % 1000).toBe(0);
    const counted = await eventually(
      'the NodePool status to count the nodes',
      async () => {
        const status = (await get<NodePool>('/apis/karpenter.sh/v1/nodepools/e2e')).status;
        return status?.nodes === nodes.length ? status : undefined;
      },
      30_000,
    );
    expect(counted.resources?.nodes).toBe(String(nodes.length));
    expect(counted.resources?.cpu).toBe(String(cpuMillis / 1000));
    expect(resourceListFromQuantities(counted.resources ?? {}).memory).toBe(memoryBytes);
    expect(Object.keys(counted.resources ?? {})).toEqual(
      expect.arrayContaining(['cpu', 'memory', 'pods', 'ephemeral-storage', 'nodes']),
    );
    expect(counted.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).toBe(true);
    console.info(
      `NodePool e2e status: nodes ${counted.nodes}, resources ${JSON.stringify(counted.resources)}`,
    );

    // The node count the Scheduler plans for the same pods, pool and catalog.
    const storedPool = await get<NodePool>('/apis/karpenter.sh/v1/nodepools/e2e');
    const pending: Pod[] = Array.from({ length: replicas }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `inflate-${i}`,
        namespace: ns,
        uid: `uid-${i}`,
        labels: { app: 'inflate' },
      },
      spec: structuredClone(podTemplate.spec),
    })) as Pod[];
    const plan = new Scheduler({
      nodePools: [storedPool],
      instanceTypes: new Map([['e2e', kwokInstanceTypes()]]),
    }).solve(pending);
    expect(plan.podErrors.size).toBe(0);
    expect(nodes.length).toBe(plan.newNodeClaims.length);
    console.info(
      `${replicas} pods bound to ${nodes.length} nodes: ${nodes.map((n) => n.metadata.labels?.['node.kubernetes.io/instance-type']).join(', ')}`,
    );
  });

  it('drains and removes the nodes when the Deployment scales to 0 and the node claims are deleted', async () => {
    await api.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/inflate`, {
      body: { spec: { replicas: 0 } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(
      'the pods to go',
      async () =>
        (await get<List<Pod>>(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dinflate`)).items
          .length === 0,
      60_000,
    );
    for (const claim of (
      await get<List<{ metadata: { name: string } }>>('/apis/karpenter.sh/v1/nodeclaims')
    ).items) {
      await api.request('DELETE', `/apis/karpenter.sh/v1/nodeclaims/${claim.metadata.name}`);
    }
    await eventually(
      'node claims, nodes and node leases to vanish',
      async () => {
        const claims = (await get<List<unknown>>('/apis/karpenter.sh/v1/nodeclaims')).items.length;
        const nodes = (await get<List<unknown>>('/api/v1/nodes')).items.length;
        const leases = (
          await get<List<unknown>>('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')
        ).items.length;
        return claims + nodes + leases === 0;
      },
      60_000,
    );
    const emptied = await eventually(
      'the NodePool status to count no nodes',
      async () => {
        const status = (await get<NodePool>('/apis/karpenter.sh/v1/nodepools/e2e')).status;
        return status?.nodes === 0 ? status : undefined;
      },
      30_000,
    );
    expect(emptied.resources).toMatchObject({ cpu: '0', memory: '0', nodes: '0' });
    expect((operator.sim?.inner as SimCloudProvider).instances()).toEqual([]);
    expect(operator.sim?.registeredNodes()).toEqual([]);
  });

  it('counts what happened in its metrics and logs JSON lines', async () => {
    const body = await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text();
    const value = (re: RegExp) => Number(body.match(re)?.[1] ?? NaN);
    const created = value(
      /^karpenter_nodeclaims_created_total\{reason="provisioning",nodepool="e2e",min_values_relaxed="false"\} (\d+)$/m,
    );
    expect(created).toBeGreaterThan(1);
    expect(
      value(/^karpenter_nodes_terminated_total\{nodepool="e2e",zone="[^"]+"\} (\d+)$/m),
    ).toBeGreaterThan(0);
    expect(body).toMatch(/^karpenter_cluster_state_synced 1$/m);
    expect(body).toMatch(/^karpenter_cluster_state_node_count 0$/m);
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(JSON.parse(line)).toHaveProperty('message');
  });

  it('releases the leader election lease on shutdown', async () => {
    await operator.shutdown('test');
    expect(await operator.done).toBe(0);
    const lease = await get<{ spec?: { holderIdentity?: string } }>(
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/karpenter-leader-election`,
    );
    expect(lease.spec?.holderIdentity ?? '').toBe('');
  });
});
