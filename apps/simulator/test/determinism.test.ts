/**
 * Same scenario, same seed: the same output, byte for byte. Every random draw (curve noise,
 * Job run times, spot interruption times and victims) comes from the seed.
 */
import { describe, expect, it } from 'vitest';
import { outputJson, simulateScenario } from '../src/engine/simulate.js';
import { loadScenario } from '../src/index.js';
import { BOUTIQUE, writeScenario } from './support.js';

const AZURE_POOLS = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      requirements:
        - {key: karpenter.azure.com/sku-family, operator: In, values: [D]}
        - {key: karpenter.azure.com/sku-version, operator: In, values: ["5"]}
        - {key: karpenter.azure.com/sku-cpu, operator: In, values: ["2", "4", "8"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
`;

function scenario(seed: number): string {
  return writeScenario(
    `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: noisy
seed: ${seed}
duration: 3h
clouds: [{cloud: azure, region: eastus}]
manifests: [${BOUTIQUE}, pools.yaml]
events:
  - type: replicasCurve
    workloads: [frontend, cartservice, currencyservice]
    every: 20m
    curve: {shape: sine, noise: 0.3, points: [{at: 0h, value: 1}, {at: 2h, value: 6}]}
  - {type: jobs, name: etl, at: 30m, count: 4, runTime: 20m, runTimeJitter: 0.5, requests: {cpu: "1", memory: 1Gi}}
  - {type: spotInterruptions, ratePerHour: 3}
  - {type: trace, file: pods.csv}
`,
    {
      'pools.yaml': AZURE_POOLS,
      'pods.csv':
        'arrival,duration,cpu,memory,owner\n10m,15m,500m,512Mi,Job/report\n1h,5m,250m,256Mi,\n',
    },
  );
}

async function outputOf(path: string): Promise<string> {
  return outputJson(await simulateScenario(await loadScenario(path), { solver: 'ts' }));
}

describe('a run', () => {
  it('is the same byte for byte with the same seed', async () => {
    const path = scenario(11);
    const first = await outputOf(path);
    expect(await outputOf(path)).toBe(first);
    expect(JSON.parse(first).runs[0].summary.counters.podsCreated).toBeGreaterThan(0);
  });

  it('differs with another seed', async () => {
    const runs = async (seed: number) =>
      JSON.stringify(JSON.parse(await outputOf(scenario(seed))).runs);
    expect(await runs(11)).not.toBe(await runs(12));
  });
});
