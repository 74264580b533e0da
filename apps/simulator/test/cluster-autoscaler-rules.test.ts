/**
 * The Cluster Autoscaler baseline's rules, each as a specification (the model's functions on
 * hand-built nodes, pods and options; test/cluster-autoscaler-run.test.ts runs it in the engine).
 */
import { describe, expect, it } from 'vitest';
import type { Node, NodePool, Pod, PodDisruptionBudget } from '@karpenter-ts/api';
import { createCloud } from '@karpenter-ts/cli';
import type { ExistingNodeInput } from '@karpenter-ts/scheduling';
import { resourceListFromQuantities } from '@karpenter-ts/scheduling';
import { nodeGroups } from '../src/cluster-autoscaler/node-groups.js';
import { expand, waste } from '../src/cluster-autoscaler/expanders.js';
import type { ScaleUpOption } from '../src/cluster-autoscaler/estimator.js';
import { estimate } from '../src/cluster-autoscaler/estimator.js';
import { neededReason, utilization } from '../src/cluster-autoscaler/scale-down.js';
import { SeededRandom } from '../src/seeded-random.js';

const aws = createCloud('aws', 'us-east-1');
const catalog = aws.instanceTypes(undefined);

function pool(
  name: string,
  requirements: NodePool['spec']['template']['spec']['requirements'],
  cpuLimit?: string,
): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements,
        },
      },
      ...(cpuLimit !== undefined ? { limits: { cpu: cpuLimit } } : {}),
    },
  } as NodePool;
}

const general = pool(
  'general',
  [
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['m'] },
    { key: 'karpenter.k8s.aws/instance-generation', operator: 'In', values: ['6'] },
    { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['9'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
  ],
  '80',
);

describe('node groups', () => {
  it('derives one on-demand group per size of the NodePool family cheapest per vCPU, sized by the cpu limit', () => {
    const groups = nodeGroups([general], () => catalog, undefined);
    const families = new Set(groups.map((g) => g.instanceType.name.split('.')[0]));
    expect(families.size).toBe(1);
    expect(groups.map((g) => g.instanceType.name.split('.')[1])).toEqual([
      'medium',
      'large',
      'xlarge',
      '2xlarge',
    ]);
    expect(groups.every((g) => g.capacityType === 'on-demand' && g.minSize === 0)).toBe(true);
    // 80 cores: 80 nodes of 1 vCPU, 40 of 2, 20 of 4, 10 of 8.
    expect(groups.map((g) => g.maxSize)).toEqual([80, 40, 20, 10]);
    // No other m generation-6 family is cheaper per vCPU.
    const perCpu = (name: string) => {
      const t = catalog.find((x) => x.name === name)!;
      return (
        Math.min(...t.offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.price)) /
        ((t.capacity.cpu ?? 0) / 1000)
      );
    };
    const chosen = perCpu(groups[0]!.instanceType.name);
    for (const f of ['m6i', 'm6a', 'm6g', 'm6id', 'm6in'])
      if (catalog.some((t) => t.name === `${f}.large`))
        expect(perCpu(`${f}.large`)).toBeGreaterThanOrEqual(chosen);
  });

  it('takes the groups the scenario gives, and names a NodePool or instance type the cloud lacks', () => {
    const groups = nodeGroups([general], () => catalog, [
      { nodePool: 'general', instanceTypes: ['m6i.xlarge'], minSize: 1, maxSize: 3 },
    ]);
    expect(groups.map((g) => [g.name, g.minSize, g.maxSize])).toEqual([
      ['general-m6i.xlarge', 1, 3],
    ]);
    expect(() =>
      nodeGroups([general], () => catalog, [{ nodePool: 'gpu', instanceTypes: ['m6i.xlarge'] }]),
    ).toThrow(
      'clusterAutoscaler.nodeGroups[0].nodePool: no NodePool gpu on this cloud (it has general)',
    );
    expect(() =>
      nodeGroups([general], () => catalog, [{ nodePool: 'general', instanceTypes: ['c6i.large'] }]),
    ).toThrow(
      'clusterAutoscaler.nodeGroups[0].instanceTypes[0]: NodePool general does not allow on-demand c6i.large on this cloud',
    );
  });
});

function pod(
  name: string,
  cpu: string,
  memory: string,
  o: {
    owner?: boolean;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    emptyDir?: boolean;
    node?: string;
    daemonSet?: boolean;
  } = {},
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      labels: o.labels ?? {},
      annotations: o.annotations ?? {},
      ...(o.owner === false
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: o.daemonSet ? 'DaemonSet' : 'ReplicaSet',
                name: 'rs',
                uid: 'u',
                controller: true,
              },
            ],
          }),
    },
    spec: {
      ...(o.node !== undefined ? { nodeName: o.node } : {}),
      containers: [{ name: 'c', resources: { requests: { cpu, memory } } }],
      ...(o.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
    status: { phase: 'Running' },
  } as Pod;
}

function node(name: string, cpu = '4', memory = '16Gi'): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: {},
    status: {
      allocatable: { cpu, memory, pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

function destination(n: Node, pods: Pod[] = []): ExistingNodeInput {
  return {
    name: n.metadata!.name!,
    labels: n.metadata!.labels!,
    taints: [],
    allocatable: resourceListFromQuantities(n.status!.allocatable!),
    pods,
  };
}

describe('scale-down', () => {
  const candidate = node('a');
  const roomy = () => new Map([['b', destination(node('b'))]]);
  const check = (
    pods: Pod[],
    o: {
      others?: Map<string, ExistingNodeInput>;
      pdbs?: PodDisruptionBudget[];
      aboveMinSize?: boolean;
    } = {},
  ) =>
    neededReason(
      { node: candidate, pods, aboveMinSize: o.aboveMinSize ?? true },
      o.others ?? roomy(),
      o.pdbs ?? [],
      'ts',
    );

  it('measures utilization as the larger of cpu and memory requested over allocatable, DaemonSet pods counted', () => {
    const u = utilization(candidate, [
      pod('x', '1', '2Gi'),
      pod('ds', '1', '10Gi', { daemonSet: true }),
    ]);
    expect(u).toEqual({ cpu: 0.5, memory: 0.75, max: 0.75 });
  });

  it('keeps a node whose utilization is 0.5 or more', () => {
    expect(check([pod('x', '2', '1Gi')])).toBe('utilization 0.50 is not under 0.5');
  });

  it('removes a node under 0.5 whose pods fit elsewhere, and counts them on their destination', () => {
    const others = roomy();
    expect(check([pod('x', '1', '1Gi')], { others })).toBeUndefined();
    expect(others.get('b')!.pods!.map((p) => p.metadata!.name)).toEqual(['x']);
  });

  it('keeps a node whose pods fit on no other node', () => {
    const full = new Map([
      ['b', destination(node('b'), [pod('big', '3500m', '1Gi', { node: 'b' })])],
    ]);
    expect(check([pod('x', '1', '1Gi')], { others: full })).toBe(
      'pod default/x fits on no other node',
    );
  });

  it('never removes a node of a group at its minimum size', () => {
    expect(check([], { aboveMinSize: false })).toBe('its node group is at its minimum size');
  });

  it('keeps a node with a pod annotated safe-to-evict "false"', () => {
    expect(
      check([
        pod('x', '100m', '1Gi', {
          annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' },
        }),
      ]),
    ).toBe('pod default/x has cluster-autoscaler.kubernetes.io/safe-to-evict: "false"');
  });

  it('keeps a node with a pod no controller backs, a kube-system pod without a PDB, or local storage, unless safe-to-evict "true"', () => {
    expect(check([pod('bare', '100m', '1Gi', { owner: false })])).toBe(
      'pod default/bare is not backed by a controller',
    );
    expect(check([pod('dns', '100m', '1Gi', { namespace: 'kube-system' })])).toBe(
      'kube-system pod kube-system/dns has no PodDisruptionBudget',
    );
    expect(check([pod('cache', '100m', '1Gi', { emptyDir: true })])).toBe(
      'pod default/cache has local storage',
    );
    const safe = { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' };
    expect(
      check([pod('bare', '100m', '1Gi', { owner: false, annotations: safe })]),
    ).toBeUndefined();
    expect(
      check([pod('cache', '100m', '1Gi', { emptyDir: true, annotations: safe })]),
    ).toBeUndefined();
  });

  it('keeps a node whose pods a PodDisruptionBudget does not let go, and ignores DaemonSet pods', () => {
    const pdb = (allowed: number): PodDisruptionBudget =>
      ({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'web', namespace: 'default' },
        spec: { selector: { matchLabels: { app: 'web' } }, minAvailable: 1 },
        status: {
          disruptionsAllowed: allowed,
          currentHealthy: 1,
          desiredHealthy: 1,
          expectedPods: 1,
        },
      }) as PodDisruptionBudget;
    const web = [
      pod('w1', '100m', '1Gi', { labels: { app: 'web' } }),
      pod('w2', '100m', '1Gi', { labels: { app: 'web' } }),
    ];
    expect(check(web, { pdbs: [pdb(1)] })).toBe(
      'pod default/w1: PodDisruptionBudget default/web allows 1 disruption(s), the node holds 2 of its pods',
    );
    expect(check(web, { pdbs: [pdb(2)] })).toBeUndefined();
    expect(check([pod('ds', '100m', '1Gi', { daemonSet: true, owner: true })])).toBeUndefined();
  });
});

describe('expanders', () => {
  const [small, large] = nodeGroups([general], () => catalog, [
    { nodePool: 'general', instanceTypes: ['m6i.large', 'm6i.2xlarge'] },
  ]);
  const pods = Array.from({ length: 6 }, (_, i) => pod(`p${i}`, '1', '2Gi'));
  const options = [small!, large!].map((g) => estimate(g, pods, [], 100, 'ts')!);

  it('estimates with the binpacking of the pods onto template nodes', () => {
    // m6i.large: 2 vCPUs (about 1.9 allocatable): one 1-cpu pod each; m6i.2xlarge: 8 vCPUs, all six.
    expect(options.map((o) => [o.group.instanceType.name, o.nodeCount, o.pods.length])).toEqual([
      ['m6i.large', 6, 6],
      ['m6i.2xlarge', 1, 6],
    ]);
  });

  it('least-waste takes the option leaving the least idle cpu and memory', () => {
    expect(waste(options[1]!)).toBeLessThan(waste(options[0]!));
    expect(expand('least-waste', options, new SeededRandom(1, 'x'))!.group.instanceType.name).toBe(
      'm6i.2xlarge',
    );
  });

  it('price takes the option with the lowest USD/hour per requested core', () => {
    const cheap: ScaleUpOption = { ...options[0]!, nodeCount: 1, pods: pods.slice(0, 1) };
    const dear: ScaleUpOption = { ...options[1]!, nodeCount: 2 };
    expect(expand('price', [dear, cheap], new SeededRandom(1, 'x'))).toBe(cheap);
  });

  it('random draws from the seed: the same seed takes the same options', () => {
    const draws = () => {
      const random = new SeededRandom(7, 'cluster-autoscaler/expander');
      return Array.from({ length: 8 }, () => expand('random', options, random)!.group.name);
    };
    const first = draws();
    expect(draws()).toEqual(first);
    expect(new Set(first).size).toBe(2);
  });
});
