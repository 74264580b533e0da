/**
 * A spot interruption: the node's pods find a new home on a replacement node, and the
 * interrupted machine is gone once the notice is up.
 */
import { describe, expect, it } from 'vitest';
import { awsNodePool, BOUTIQUE, eventsOf, runFirstCloud, writeScenario } from './support.js';

describe('a spot interruption', () => {
  it('reschedules its pods and a replacement node appears', async () => {
    const path = writeScenario(
      `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: spot
duration: 1h
clouds: [{cloud: aws, region: us-east-1}]
manifests: [${BOUTIQUE}, pools.yaml]
events:
  - {type: spotInterruptions, at: [20m]}
`,
      {
        'pools.yaml': awsNodePool('spot', {
          instanceTypes: ['m6i.xlarge', 'm6i.2xlarge'],
          capacityTypes: ['spot'],
        }),
      },
    );
    const run = await runFirstCloud(path);
    const [interruption] = eventsOf(run, 'interruption');
    expect(interruption?.t).toBe(1200);
    const interrupted = interruption!.node;
    const launchedAfter = eventsOf(run, 'node-launched').filter((e) => e.t >= 1200);
    expect(launchedAfter.length).toBeGreaterThanOrEqual(1);
    expect(launchedAfter[0]!.capacityType).toBe('spot');
    const terminated = eventsOf(run, 'node-terminated').find((e) => e.node === interrupted);
    expect(terminated?.t).toBeGreaterThanOrEqual(1200);
    expect(terminated!.t).toBeLessThanOrEqual(1200 + 120);
    expect(eventsOf(run, 'eviction').filter((e) => e.t >= 1200).length).toBeGreaterThan(0);
    expect(run.summary.counters.interruptions).toBe(1);
    expect(run.summary.pendingPods.final).toBe(0);
    const last = run.samples.at(-1)!;
    expect(last.runningPods).toBe(run.samples.find((s) => s.t === 1200)!.runningPods);
  });
});
