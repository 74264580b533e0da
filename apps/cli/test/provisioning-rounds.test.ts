import { describe, expect, it } from 'vitest';
import { createCloud } from '../src/clouds/select.js';
import { parseManifestText } from '../src/manifests/parse.js';
import { simulate } from '../src/simulation/simulate.js';
import { cli } from './support/cli.js';

const NOW = new Date('2026-01-02T03:04:05Z');

/** A Deployment whose pods must each land on their own node (hostname anti-affinity). */
function spreadDeployment(replicas: number, cpu = '500m'): string {
  return `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: { matchLabels: { app: web } }
              topologyKey: kubernetes.io/hostname
      containers:
        - name: c
          image: nginx
          resources: { requests: { cpu: ${cpu}, memory: 256Mi } }
`;
}

function limitedSimPool(cpuLimit: string): string {
  return `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: limited }
spec:
  limits: { cpu: "${cpuLimit}" }
  template:
    spec:
      nodeClassRef: { group: karpenter.sim, kind: SimNodeClass, name: default }
      requirements:
        - { key: kubernetes.io/os, operator: In, values: [linux] }
        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }
`;
}

async function run(text: string, cloud: 'sim' | 'aws') {
  const { documents, errors } = parseManifestText(text, 'input.yaml');
  expect(errors).toEqual([]);
  return simulate(documents, createCloud(cloud, undefined), { now: NOW });
}

describe('provisioning rounds', () => {
  it('schedules all 22 spread pods under the AWS default NodePool (limits.cpu 1000): the launched nodes count with their real capacity', async () => {
    const simulation = await run(spreadDeployment(22), 'aws');
    expect(simulation.podErrors).toEqual([]);
    expect(simulation.nodeClaims).toHaveLength(22);
    expect(simulation.rounds).toBeGreaterThan(1);
    const capacity = simulation.nodeClaims.reduce(
      (sum, c) => sum + (c.launch.instanceType.capacity.cpu ?? 0),
      0,
    );
    expect(capacity).toBeLessThanOrEqual(1_000_000);
  });

  it('stops at the NodePool limit measured on launched capacity, leaving the rest pending with the limit as reason', async () => {
    const simulation = await run(`${limitedSimPool('8')}---${spreadDeployment(12, '1')}`, 'sim');
    const capacity = simulation.nodeClaims.reduce(
      (sum, c) => sum + (c.launch.instanceType.capacity.cpu ?? 0),
      0,
    );
    expect(capacity).toBeLessThanOrEqual(8000);
    // Each pod needs its own node with more than 1 cpu of capacity: at most 4 fit in 8 cpu.
    expect(simulation.nodeClaims.length).toBeGreaterThanOrEqual(3);
    expect(simulation.nodeClaims.length).toBeLessThanOrEqual(4);
    expect(simulation.podErrors).toHaveLength(12 - simulation.nodeClaims.length);
    for (const e of simulation.podErrors) expect(e.reason).toMatch(/limits/);
  });

  it('numbers the rounds: the first launches node claims, later rounds what limits held back, and the last placed nothing or everything', async () => {
    const simulation = await run(spreadDeployment(22), 'aws');
    const rounds = simulation.nodeClaims.map((c) => c.round);
    expect(Math.min(...rounds)).toBe(1);
    expect(Math.max(...rounds)).toBeLessThanOrEqual(simulation.rounds);
    expect([...rounds].sort((a, b) => a - b)).toEqual(rounds);
    expect(new Set(simulation.nodeClaims.map((c) => c.nodeName)).size).toBe(22);
  });

  it('reports the rounds in the table summary and in JSON', async () => {
    const table = await cli(
      'simulate',
      '../../examples/workloads/online-boutique-kubernetes-manifests.yaml',
      '--cloud',
      'sim',
    );
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /12 of 12 pods scheduled on \d+ new nodes? in 1 provisioning round;/,
    );
    const json = await cli(
      'simulate',
      '../../examples/workloads/online-boutique-kubernetes-manifests.yaml',
      '--cloud',
      'sim',
      '-o',
      'json',
    );
    const report = JSON.parse(json.stdout) as { rounds: number; nodeClaims: { round: number }[] };
    expect(report.rounds).toBe(1);
    expect(report.nodeClaims.every((c) => c.round === 1)).toBe(true);
  });
});
