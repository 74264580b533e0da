/**
 * `simulate`, `explain` and `compare` run the controllers' provisioner on the input read as a
 * cluster snapshot (issue 12, item 2): the same state for every command, the controller's
 * policies as flags.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';
import { list, machine, nodePool, pods, simNodeClass, writeSnapshot } from './support/snapshot.js';

interface SimulationJson {
  nodeClaims: { nodePool: string; instanceType: string; pods: string[] }[];
  podErrors: { pod: string; reason: string }[];
  notes: string[];
}

async function simulateJson(file: string, ...flags: string[]): Promise<SimulationJson> {
  const { code, stdout, stderr } = await cli(
    'simulate',
    file,
    '--cloud',
    'sim',
    '-o',
    'json',
    ...flags,
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as SimulationJson;
}

/** A Deployment `web` of `replicas` pods (500m, 256Mi) and its ReplicaSet, as kubectl lists them. */
function deployment(replicas: number) {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', resources: { requests: { cpu: '500m', memory: '256Mi' } } },
      ],
    },
  };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
      spec: { replicas, selector: { matchLabels: { app: 'web' } }, template },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'web-5d8f7c9b4',
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: 'uid-web',
            controller: true,
          },
        ],
      },
      spec: { replicas, selector: { matchLabels: { app: 'web' } }, template },
    },
  ];
}

describe('simulate reads the input as a cluster', () => {
  it('a Deployment, its ReplicaSet and its 2 bound pods: no new node claim (the workload is not expanded again)', async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool(),
        machine('a', 'c-4x-amd64-linux'),
        deployment(2),
        pods('web', 'a', 2),
      ),
    );
    const report = await simulateJson(file);
    expect(report.nodeClaims).toEqual([]);
    expect(report.podErrors).toEqual([]);
    expect(report.notes).toContain(
      'every pod of the input is bound to a Node already: nothing to provision',
    );
  });

  it('the same Deployment at 4 replicas: the 2 missing pods fit on the existing node', async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool(),
        machine('a', 'c-4x-amd64-linux'),
        deployment(4),
        pods('web', 'a', 2),
      ),
    );
    const { stdout } = await cli('simulate', file, '--cloud', 'sim', '-o', 'json');
    const report = JSON.parse(stdout) as SimulationJson & {
      existingNodes: { name: string; pods: string[] }[];
    };
    expect(report.nodeClaims).toEqual([]);
    expect(report.existingNodes.map((n) => [n.name, n.pods.length])).toEqual([['a', 2]]);
  });
});

describe('explain reads the same state as simulate', () => {
  it("a NodePool whose limits the cluster's nodes use up cannot host the pod, in explain as in simulate", async () => {
    const limited = { ...nodePool(), spec: { ...nodePool().spec, limits: { cpu: '4' } } };
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        limited,
        machine('a', 'c-4x-amd64-linux'),
        pods('web', 'a', 7),
        pods('web', undefined, 2, { names: ['web-5d8f7c9b4-p1', 'web-5d8f7c9b4-p2'], cpu: '1' }),
      ),
    );
    const simulation = await simulateJson(file);
    expect(simulation.nodeClaims).toEqual([]);
    expect(simulation.podErrors.map((e) => e.pod).sort()).toEqual([
      'default/web-5d8f7c9b4-p1',
      'default/web-5d8f7c9b4-p2',
    ]);
    for (const e of simulation.podErrors) expect(e.reason).toMatch(/limits/);
    const { code, stdout } = await cli(
      'explain',
      file,
      '--cloud',
      'sim',
      '--pod',
      'default/web-5d8f7c9b4-p1',
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const explanation = JSON.parse(stdout) as {
      nodePools: { name: string; canHost: boolean; reason: string }[];
      simulation: string;
    };
    expect(explanation.nodePools).toEqual([
      expect.objectContaining({
        name: 'default',
        canHost: false,
        reason: expect.stringMatching(/limits/),
      }),
    ]);
    expect(explanation.simulation).toMatch(/^pending: .*limits/);
  });
});

describe('--preference-policy and --min-values-policy, as the controller has them', () => {
  const preferArm = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              preference: { matchExpressions: [{ key: kubernetes.io/arch, operator: In, values: [arm64] }] }
      containers: [{ name: c, image: i, resources: { requests: { cpu: 500m, memory: 256Mi } } }]
`;

  it('Respect (the default) honours a preferred arm64 node; Ignore drops the preference (amd64 and arm64 cost the same, amd64 comes first)', async () => {
    const file = await writeManifests(preferArm);
    const respect = await simulateJson(file);
    expect(respect.nodeClaims.map((c) => c.instanceType)).toEqual(['c-1x-arm64-linux']);
    const ignore = await simulateJson(file, '--preference-policy', 'Ignore');
    expect(ignore.nodeClaims.map((c) => c.instanceType)).toEqual(['c-1x-amd64-linux']);
  });

  const minValuesPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: varied }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.sim, kind: SimNodeClass, name: default }
      requirements:
        - { key: kubernetes.io/os, operator: In, values: [linux] }
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
        - { key: karpenter.kwok.sh/instance-family, operator: Exists, minValues: 5 }
`;
  const web = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: c, image: i, resources: { requests: { cpu: 500m, memory: 256Mi } } }]
`;

  it('a minValues the catalog cannot meet: Strict leaves the pod pending, BestEffort launches anyway', async () => {
    const file = await writeManifests(minValuesPool, web);
    const strict = await simulateJson(file);
    expect(strict.nodeClaims).toEqual([]);
    expect(strict.podErrors).toHaveLength(1);
    expect(strict.podErrors[0]!.reason).toMatch(/minValues/);
    const bestEffort = await simulateJson(file, '--min-values-policy', 'BestEffort');
    expect(bestEffort.podErrors).toEqual([]);
    expect(bestEffort.nodeClaims).toHaveLength(1);
  });

  it('refuses a policy that does not exist (exit 2)', async () => {
    const file = await writeManifests(web);
    const { code, stderr } = await cli('simulate', file, '--preference-policy', 'Sometimes');
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /--preference-policy <policy>' argument 'Sometimes' is invalid. Allowed choices are Respect, Ignore/,
    );
  });
});
