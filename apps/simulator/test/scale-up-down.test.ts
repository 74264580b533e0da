/**
 * A scale-up followed by a scale-down, compared with the one-shot `karpenter-ts simulate` of the
 * final state: the same Scheduler and catalog, once with history (provisioning, then
 * consolidation over time), once from scratch.
 */
import { describe, expect, it } from 'vitest';
import { createCloud, simulate, type ManifestDocument } from '@karpenter-ts/cli';
import { loadScenario } from '../src/index.js';
import { awsNodePool, BOUTIQUE, finalNodes, runFirstCloud, writeScenario } from './support.js';

const TYPES = [
  'm6i.large',
  'm6i.xlarge',
  'm6i.2xlarge',
  'm6i.4xlarge',
  'c6i.large',
  'c6i.xlarge',
  'c6i.2xlarge',
];

/** Online Boutique scaled to 12 replicas at 10 min and to `down` at 1 h, for 3 h. */
function upAndDown(down: number): string {
  return writeScenario(
    `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: up-and-down
duration: 3h
clouds: [{cloud: aws, region: us-east-1}]
manifests: [${BOUTIQUE}, pools.yaml]
events:
  - {type: replicas, at: 10m, workloads: ["*"], replicas: 12}
  - {type: replicas, at: 1h, workloads: ["*"], replicas: ${down}}
`,
    { 'pools.yaml': awsNodePool('general', { instanceTypes: TYPES }) },
  );
}

/** The one-shot simulation of the scenario's manifests with every Deployment at `replicas`. */
async function oneShot(path: string, replicas: number) {
  const scenario = await loadScenario(path);
  const docs: ManifestDocument[] = [...scenario.documents, ...scenario.clouds[0]!.documents].map(
    (d) =>
      d.object.kind === 'Deployment'
        ? { ...d, object: { ...d.object, spec: { ...(d.object.spec as object), replicas } } }
        : d,
  );
  const result = await simulate(docs, createCloud('aws', 'us-east-1'), { solver: 'ts' });
  const nodes: Record<string, number> = {};
  let usdPerHour = 0;
  for (const c of result.nodeClaims) {
    nodes[c.launch.instanceType.name] = (nodes[c.launch.instanceType.name] ?? 0) + 1;
    usdPerHour += c.launch.offering.price;
  }
  return { nodes, usdPerHour, count: result.nodeClaims.length };
}

describe('a scale-up and a scale-down', () => {
  it('back to the starting replicas ends with the nodes the one-shot simulate gives', async () => {
    const path = upAndDown(1);
    const run = await runFirstCloud(path);
    const expected = await oneShot(path, 1);
    expect(run.summary.nodes.peak).toBeGreaterThan(expected.count);
    expect(finalNodes(run)).toEqual(expected.nodes);
    expect(run.summary.counters.disruptions).toEqual({ Empty: 2 });
  });

  it('to another state ends at the one-shot price, though not always on the same nodes', async () => {
    // Consolidation replaces nodes only with strictly cheaper ones: two c6i.large and a
    // c6i.xlarge cost what one c6i.2xlarge does, so they stay where the one-shot packs one node.
    const path = upAndDown(4);
    const run = await runFirstCloud(path);
    const expected = await oneShot(path, 4);
    expect(run.samples.at(-1)!.usdPerHour).toBeCloseTo(expected.usdPerHour, 6);
    expect(run.summary.counters.disruptions.Underutilized).toBeGreaterThanOrEqual(1);
    expect(run.summary.pendingPods.final).toBe(0);
  });
});
