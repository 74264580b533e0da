import type { Node, NodeClaim, Taint } from '@karpenter-ts/api';
import { Labels } from '@karpenter-ts/api';
import { pod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { Cluster, ManualClock, MemoryKubeClient } from '../src/index.js';
import { runningPod } from './helpers.js';

function claim(
  o: { providerID?: string; startupTaints?: NodeClaim['spec']['startupTaints'] } = {},
): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: 'default-abcde',
      labels: { [Labels.NodePool]: 'default', [Labels.InstanceType]: 'm' },
    },
    spec: {
      requirements: [],
      nodeClassRef: { group: 'g', kind: 'K', name: 'n' },
      taints: [{ key: 'dedicated', effect: 'NoSchedule' }],
      ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
    },
    status: {
      ...(o.providerID ? { providerID: o.providerID } : {}),
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '3900m', memory: '7Gi', pods: '110' },
    },
  };
}

function node(labels: Record<string, string>, taints: Taint[] = []): Node {
  return {
    metadata: { name: 'node-1', labels: { [Labels.NodePool]: 'default', ...labels } },
    spec: { providerID: 'sim:///z/default-abcde', taints },
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '3', memory: '6Gi', pods: '110' },
    },
  };
}

describe('Cluster state', () => {
  it('tracks an unlaunched node claim without a state node and is not synced', async () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNodeClaim(claim());
    expect(cluster.nodes()).toHaveLength(0);
    expect(await cluster.synced(new MemoryKubeClient())).toBe(false);
  });

  it('speaks for a launched machine with the NodeClaim until the node registers', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNodeClaim(claim({ providerID: 'sim:///z/default-abcde' }));
    const [n] = cluster.nodes();
    expect(n?.name()).toBe('default-abcde');
    expect(n?.registered()).toBe(false);
    expect(n?.labels()[Labels.InstanceType]).toBe('m');
    expect(n?.taints()).toEqual([{ key: 'dedicated', effect: 'NoSchedule' }]);
    expect(n?.allocatable()).toEqual({ cpu: 3900, memory: 7 * 1024 ** 3, pods: 110 });
  });

  it('merges the Node and NodeClaim by provider ID', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNodeClaim(claim({ providerID: 'sim:///z/default-abcde' }));
    cluster.updateNode(node({ [Labels.Registered]: 'true', zone: 'a' }));
    const nodes = cluster.nodes();
    expect(nodes).toHaveLength(1);
    expect(nodes[0]?.name()).toBe('node-1');
    expect(nodes[0]?.labels().zone).toBe('a');
    expect(nodes[0]?.managed()).toBe(true);
  });

  it('uses NodeClaim allocatable and ignores startup and ephemeral taints until initialized', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNodeClaim(
      claim({
        providerID: 'sim:///z/default-abcde',
        startupTaints: [{ key: 'cni', effect: 'NoSchedule' }],
      }),
    );
    cluster.updateNode(
      node({ [Labels.Registered]: 'true' }, [
        { key: 'cni', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
        { key: 'dedicated', effect: 'NoSchedule' },
      ]),
    );
    let [n] = cluster.nodes();
    expect(n?.initialized()).toBe(false);
    expect(n?.taints()).toEqual([{ key: 'dedicated', effect: 'NoSchedule' }]);
    expect(n?.allocatable().cpu).toBe(3900);
    cluster.updateNode(
      node({ [Labels.Registered]: 'true', [Labels.Initialized]: 'true' }, [
        { key: 'cni', effect: 'NoSchedule' },
      ]),
    );
    [n] = cluster.nodes();
    expect(n?.initialized()).toBe(true);
    expect(n?.taints()).toEqual([{ key: 'cni', effect: 'NoSchedule' }]);
    expect(n?.allocatable().cpu).toBe(3000);
  });

  it('counts bound, non-terminal pods against their node', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNode(node({}));
    cluster.updatePod(runningPod(pod({ name: 'a', requests: { cpu: '1' } }), 'node-1'));
    cluster.updatePod({
      ...runningPod(pod({ name: 'b', requests: { cpu: '1' } }), 'node-1'),
      status: { phase: 'Succeeded' },
    });
    cluster.updatePod(
      runningPod(pod({ name: 'c', requests: { cpu: '1' }, ownerKind: 'DaemonSet' }), 'node-1'),
    );
    const [n] = cluster.nodes();
    expect(n?.pods.map((p) => p.metadata?.name).sort()).toEqual(['a', 'c']);
    expect(n?.podRequests().cpu).toBe(2000);
    expect(n?.daemonSetRequests().cpu).toBe(1000);
  });

  it('nominates a node for a window and marks nodes for deletion', () => {
    const clock = new ManualClock();
    const cluster = new Cluster(clock);
    cluster.updateNode(node({}));
    cluster.nominate('node-1', 20);
    expect(cluster.nodes()[0]?.nominated(clock.now())).toBe(true);
    clock.advance(20);
    expect(cluster.nodes()[0]?.nominated(clock.now())).toBe(false);
    cluster.markForDeletion('node-1');
    expect(cluster.nodes()[0]?.markedForDeletion).toBe(true);
    cluster.unmarkForDeletion('node-1');
    expect(cluster.nodes()[0]?.markedForDeletion).toBe(false);
  });

  it('sums NodePool usage without deleting or marked nodes, counting unlaunched claims as nodes', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateNodeClaim(claim({ providerID: 'sim:///z/default-abcde' }));
    cluster.updateNodeClaim({
      ...claim(),
      metadata: { name: 'default-fghij', labels: { [Labels.NodePool]: 'default' } },
    });
    expect(cluster.nodePoolUsage().get('default')).toEqual({
      cpu: 4000,
      memory: 8 * 1024 ** 3,
      pods: 110,
      nodes: 2,
    });
    cluster.markForDeletion('default-abcde');
    expect(cluster.nodePoolUsage().get('default')).toEqual({ nodes: 1 });
  });

  it('is synced once every Node and NodeClaim in the API is known and launched', async () => {
    const client = new MemoryKubeClient();
    const cluster = new Cluster(new ManualClock());
    await client.create('Node', node({}));
    expect(await cluster.synced(client)).toBe(false);
    cluster.updateNode((await client.list('Node'))[0]!);
    expect(await cluster.synced(client)).toBe(true);
  });

  it('builds a daemonset pod from the template when none runs yet', () => {
    const cluster = new Cluster(new ManualClock());
    cluster.updateDaemonSet({
      metadata: { name: 'agent', namespace: 'kube-system', uid: 'ds-1' },
      spec: {
        selector: {},
        template: {
          spec: { containers: [{ name: 'a', resources: { requests: { cpu: '100m' } } }] },
        },
      },
    });
    const [p] = cluster.daemonSetPods();
    expect(p?.metadata?.ownerReferences?.[0]?.kind).toBe('DaemonSet');
    expect(p?.spec?.containers[0]?.resources?.requests?.cpu).toBe('100m');
  });
});
