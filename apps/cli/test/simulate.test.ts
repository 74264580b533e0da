import { describe, expect, it } from 'vitest';
import {
  addResources,
  fits,
  podRequests,
  Requirements,
  type ResourceList,
} from '@karpenter-ts/scheduling';
import { allowUndefinedLabels } from '../src/clouds/cloud.js';
import { createCloud } from '../src/clouds/select.js';
import type { CloudName } from '../src/commands/options.js';
import { memoryIo } from '../src/io.js';
import { loadManifestsStrict } from '../src/manifests/load.js';
import { parseManifestText } from '../src/manifests/parse.js';
import { run } from '../src/program.js';
import { simulate, type Simulation } from '../src/simulation/simulate.js';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';

const WORKLOADS = {
  'online-boutique': '../../examples/workloads/online-boutique-kubernetes-manifests.yaml',
  'sock-shop': '../../examples/workloads/sock-shop-complete-demo.yaml',
};
const NOW = new Date('2026-01-02T03:04:05Z');

/** Checks what every simulation must satisfy, recomputing fit with the scheduling package. */
function expectSound(simulation: Simulation, expectedPods: number): void {
  expect(simulation.podErrors.map((e) => e.reason)).toEqual([]);
  const placed = simulation.nodeClaims.flatMap((c) => c.pods);
  expect(placed).toHaveLength(expectedPods);
  expect(new Set(placed).size).toBe(expectedPods);
  const pools = new Map(simulation.pools.map((p) => [p.nodePool.metadata.name, p.nodePool]));
  const allowUndefined = allowUndefinedLabels(simulation.cloud);
  for (const claim of simulation.nodeClaims) {
    const { instanceType, offering } = claim.launch;
    // Fit: the pods' own requests (init containers, sidecars, overhead counted by podRequests) fit the launched type.
    const requests = claim.pods.reduce<ResourceList>(
      (sum, pod) => addResources(sum, podRequests(pod)),
      {},
    );
    expect(
      fits(requests, instanceType.allocatable()),
      `${instanceType.name} holds ${claim.pods.length} pods`,
    ).toBe(true);
    expect(fits(claim.requests, instanceType.allocatable())).toBe(true);
    // Requirements: the instance type's labels and the offering satisfy every NodePool requirement.
    const pool = pools.get(claim.nodePool)!;
    const poolRequirements = Requirements.fromNodeSelectorRequirements(
      pool.spec.template.spec.requirements,
    );
    expect(instanceType.requirements.intersects(poolRequirements)).toBeUndefined();
    expect(poolRequirements.compatible(offering.requirements, allowUndefined)).toBeUndefined();
    const labels: Record<string, string> = {
      ...instanceType.requirements.labels(),
      'topology.kubernetes.io/zone': offering.zone,
      'karpenter.sh/capacity-type': offering.capacityType,
    };
    for (const requirement of poolRequirements) {
      const value = labels[requirement.key];
      if (value !== undefined)
        expect(requirement.has(value), `${requirement.key}=${value} on ${instanceType.name}`).toBe(
          true,
        );
    }
    expect(offering.available).toBe(true);
    // The launched offering is the cheapest available offering compatible with the claim among its options.
    for (const option of claim.instanceTypeOptions) {
      for (const o of option.offerings) {
        if (o.available && claim.requirements.isCompatible(o.requirements, allowUndefined)) {
          expect(o.price).toBeGreaterThanOrEqual(offering.price);
        }
      }
    }
  }
}

describe.each<[CloudName, string]>([
  ['azure', 'eastus'],
  ['aws', 'us-east-1'],
])('simulate on %s with the real example workloads', (cloudName, region) => {
  for (const [name, file] of Object.entries(WORKLOADS)) {
    for (const scale of [1, 50]) {
      it(`schedules every pod of ${name} at --scale ${scale} onto node claims that fit them and obey the default NodePool`, async () => {
        const documents = await loadManifestsStrict([file]);
        const cloud = createCloud(cloudName, undefined);
        expect(cloud.region).toBe(region);
        const simulation = await simulate(documents, cloud, { scale, now: NOW });
        expect(simulation.pools.map((p) => p.origin)).toEqual(['default']);
        expect(simulation.notes[0]).toMatch(/^no NodePool in the input: using the /);
        const expected = (name === 'online-boutique' ? 12 : 14) * scale;
        expect(simulation.pendingPods).toBe(expected);
        expectSound(simulation, expected);
      });
    }
  }

  it('obeys a NodePool from the input: arm64 spot nodes only', async () => {
    const kind =
      cloudName === 'azure'
        ? ['karpenter.azure.com', 'AKSNodeClass']
        : ['karpenter.k8s.aws', 'EC2NodeClass'];
    const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: arm-spot }
spec:
  template:
    spec:
      nodeClassRef: { group: ${kind[0]}, kind: ${kind[1]}, name: default }
      requirements:
        - { key: kubernetes.io/arch, operator: In, values: [arm64] }
        - { key: karpenter.sh/capacity-type, operator: In, values: [spot] }
`;
    const documents = [
      ...parseManifestText(pool, 'pool.yaml').documents,
      ...(await loadManifestsStrict([WORKLOADS['online-boutique']])),
    ];
    const simulation = await simulate(documents, createCloud(cloudName, undefined), {
      scale: 10,
      now: NOW,
    });
    expect(simulation.pools.map((p) => [p.nodePool.metadata.name, p.origin])).toEqual([
      ['arm-spot', 'input'],
    ]);
    expectSound(simulation, 120);
    for (const claim of simulation.nodeClaims) {
      expect(claim.launch.instanceType.requirements.labels()['kubernetes.io/arch']).toBe('arm64');
      expect(claim.launch.offering.capacityType).toBe('spot');
    }
  });
});

describe('simulate', () => {
  it('gives the same node claims with the wasm and the ts solver', async () => {
    const documents = await loadManifestsStrict([WORKLOADS['sock-shop']]);
    const shape = async (solver: 'wasm' | 'ts') =>
      (
        await simulate(documents, createCloud('azure', undefined), {
          scale: 20,
          solver,
          now: NOW,
        })
      ).nodeClaims.map((c) => [c.launch.instanceType.name, c.pods.length]);
    expect(await shape('ts')).toEqual(await shape('wasm'));
  });

  it('retargets a NodePool written for another cloud and says so', async () => {
    const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: general }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements:
        - { key: karpenter.azure.com/sku-family, operator: In, values: [D] }
        - { key: kubernetes.io/arch, operator: In, values: [amd64] }
`;
    const documents = [
      ...parseManifestText(pool, 'pool.yaml').documents,
      ...(await loadManifestsStrict([WORKLOADS['online-boutique']])),
    ];
    const simulation = await simulate(documents, createCloud('aws', undefined), { now: NOW });
    expect(simulation.pools[0]!.origin).toBe('retargeted');
    expect(simulation.pools[0]!.nodePool.spec.template.spec.requirements).toEqual([
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    ]);
    expect(simulation.notes).toEqual([
      'NodePool "general" references AKSNodeClass: simulated on aws with the default EC2NodeClass, dropping requirements on karpenter.azure.com/sku-family',
      'spot node claims show modelled prices: spot = 0.7 × on-demand (modelled)',
    ]);
    expect(simulation.pools[0]!.droppedRequirements).toEqual([
      { key: 'karpenter.azure.com/sku-family', operator: 'In', values: ['D'] },
    ]);
    expectSound(simulation, 12);
  });

  it('reports a pod no NodePool can host as pending, with the reason', async () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: { name: huge }
spec:
  containers: [{ name: c, image: i, resources: { requests: { cpu: "100000" } } }]
`;
    const simulation = await simulate(
      parseManifestText(pod, 'pod.yaml').documents,
      createCloud('sim', undefined),
      { now: NOW },
    );
    expect(simulation.nodeClaims).toEqual([]);
    expect(simulation.podErrors).toHaveLength(1);
    expect(simulation.podErrors[0]!.reason).not.toBe('');
  });

  it('stops with one line naming file, document and field for an invalid NodePool', async () => {
    const pool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: bad }
spec:
  weight: 0
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements: []
`;
    await expect(
      simulate(parseManifestText(pool, 'pool.yaml').documents, createCloud('azure', undefined)),
    ).rejects.toThrow('pool.yaml:1 spec.weight: must be at least 1, got 0');
  });
});

describe('karpenter-ts simulate --output json', () => {
  it('prints {cloud, region, nodeClaims[], podErrors[], totals}', async () => {
    const io = memoryIo();
    const code = await run(
      ['simulate', WORKLOADS['online-boutique'], '--cloud', 'aws', '-o', 'json'],
      io,
    );
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(io.stdout) as {
      cloud: string;
      region: string;
      nodeClaims: Record<string, unknown>[];
      podErrors: unknown[];
      totals: { nodes: number; pods: number; scheduledPods: number; pricePerHour: number };
    };
    expect(report.cloud).toBe('aws');
    expect(report.region).toBe('us-east-1');
    expect(report.podErrors).toEqual([]);
    expect(report.totals.pods).toBe(12);
    expect(report.totals.scheduledPods).toBe(12);
    expect(report.totals.nodes).toBe(report.nodeClaims.length);
    for (const claim of report.nodeClaims) {
      for (const key of [
        'nodePool',
        'instanceType',
        'zone',
        'capacityType',
        'pricePerHour',
        'pods',
        'requests',
        'allocatable',
      ]) {
        expect(claim).toHaveProperty(key);
      }
      expect((claim.requests as Record<string, string>).cpu).toMatch(/^\d+m?$/);
    }
    const sum = report.nodeClaims.reduce((s, c) => s + (c.pricePerHour as number), 0);
    expect(report.totals.pricePerHour).toBeCloseTo(sum, 6);
  });

  it('exits 1 with one line when there is nothing to schedule', async () => {
    const io = memoryIo();
    const code = await run(['simulate', 'test/fixtures/valid'], io);
    expect(code).toBe(1);
    expect(io.stderr).toMatch(
      /^karpenter-ts: error: nothing to schedule: no pending pods in the input/,
    );
  });
});

describe('simulate with cluster state from the input', () => {
  const node = (name: string, cpu: string) => `apiVersion: v1
kind: Node
metadata:
  name: ${name}
  labels: { kubernetes.io/os: linux, kubernetes.io/arch: amd64, topology.kubernetes.io/zone: test-zone-a }
status:
  allocatable: { cpu: "${cpu}", memory: 8Gi, pods: "110" }
`;
  const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: web, image: web, resources: { requests: { cpu: "1", memory: 1Gi } } }]
`;

  it('fills existing Nodes (minus their bound pods) before launching new node claims', async () => {
    const bound = `apiVersion: v1
kind: Pod
metadata: { name: already-there }
spec:
  nodeName: node-1
  containers: [{ name: c, image: i, resources: { requests: { cpu: "2" } } }]
`;
    const text = [node('node-1', '4'), bound, deployment(5)].join('---\n');
    const simulation = await simulate(
      parseManifestText(text, 'cluster.yaml').documents,
      createCloud('sim', undefined),
      { now: NOW },
    );
    // node-1 has 4 cpu, 2 taken by the bound pod: two 1-cpu pods fit there, three need a new node claim.
    expect(simulation.existingNodes.map((n) => [n.name, n.pods.length])).toEqual([['node-1', 2]]);
    expect(simulation.nodeClaims.flatMap((c) => c.pods)).toHaveLength(3);
    expect(simulation.podErrors).toEqual([]);
  });

  it('adds the daemonset overhead of DaemonSets that fit to every node claim, and still fits it', async () => {
    const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent, namespace: kube-system }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec:
      containers: [{ name: agent, image: agent, resources: { limits: { cpu: 500m, memory: 256Mi } } }]
`;
    const text = [daemonSet, deployment(6)].join('---\n');
    const simulation = await simulate(
      parseManifestText(text, 'ds.yaml').documents,
      createCloud('sim', undefined),
      { now: NOW },
    );
    expect(simulation.podErrors).toEqual([]);
    expect(simulation.nodeClaims.length).toBeGreaterThan(0);
    for (const claim of simulation.nodeClaims) {
      const podsOnly = claim.pods.reduce<ResourceList>(
        (sum, pod) => addResources(sum, podRequests(pod)),
        {},
      );
      // Requests defaulted from the DaemonSet's limits: 500m cpu and 256Mi memory per node.
      expect(claim.requests.cpu).toBe((podsOnly.cpu ?? 0) + 500);
      expect(claim.requests.memory).toBe((podsOnly.memory ?? 0) + 256 * 2 ** 20);
      expect(fits(claim.requests, claim.launch.instanceType.allocatable())).toBe(true);
    }
  });

  it('notes PodDisruptionBudgets, which do not change provisioning', async () => {
    const pdb = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web }
spec: { minAvailable: 1, selector: { matchLabels: { app: web } } }
`;
    const simulation = await simulate(
      parseManifestText([pdb, deployment(1)].join('---\n'), 'w.yaml').documents,
      createCloud('sim', undefined),
      {
        now: NOW,
      },
    );
    expect(simulation.notes).toContain(
      '1 PodDisruptionBudget(s) read: they limit disruption, not provisioning, so they do not change this simulation',
    );
  });

  it('rejects a Node without allocatable with one line naming the field', async () => {
    const text = ['apiVersion: v1\nkind: Node\nmetadata: { name: n }\n', deployment(1)].join(
      '---\n',
    );
    await expect(
      simulate(parseManifestText(text, 'c.yaml').documents, createCloud('sim', undefined)),
    ).rejects.toThrow('c.yaml:1 status.allocatable: required to simulate an existing node');
  });
});

describe('errors', () => {
  it('prints a stack trace only with --debug', async () => {
    const plain = memoryIo();
    expect(await run(['simulate', '/no/such/dir'], plain)).toBe(1);
    expect(plain.stderr).toBe('karpenter-ts: error: /no/such/dir: no such file or folder\n');
    const debug = memoryIo();
    expect(await run(['--debug', 'simulate', '/no/such/dir'], debug)).toBe(1);
    expect(debug.stderr).toMatch(
      /^karpenter-ts: error: \/no\/such\/dir: no such file or folder\nCliError: .*\n\s+at /,
    );
  });

  it('rejects a non-positive --scale as a usage error (exit 2)', async () => {
    const io = memoryIo();
    expect(await run(['simulate', 'x.yaml', '--scale', '0'], io)).toBe(2);
    expect(io.stderr).toBe(
      'karpenter-ts: error: --scale: expected a decimal number greater than 0 such as 2 or 0.5, got "0"\n',
    );
  });
});

describe('simulate with an AKSNodeClass that has no spec', () => {
  it.each(['', 'spec: null\n'])(
    'validates it and simulates with its CRD defaults (128 GB OS disk), as for an empty spec (%j)',
    async (spec) => {
      const input = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: pool }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: bare }
      requirements: [{ key: karpenter.azure.com/sku-family, operator: In, values: [D] }]
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: { name: bare }
${spec}---
apiVersion: v1
kind: Pod
metadata: { name: web }
spec:
  containers: [{ name: c, image: nginx, resources: { requests: { cpu: 100m } } }]
`;
      const file = await writeManifests(input);
      expect(await cli('validate', file)).toMatchObject({ code: 0, stderr: '' });
      const simulated = await cli('simulate', file, '-o', 'json');
      expect(simulated.stderr).toBe('');
      expect(simulated.code).toBe(0);
      const report = JSON.parse(simulated.stdout);
      expect(report.nodePools[0].nodeClass).toMatchObject({ name: 'bare', default: false });
      expect(report.nodeClaims[0].allocatable['ephemeral-storage']).toBe('128000000000');
    },
  );
});
