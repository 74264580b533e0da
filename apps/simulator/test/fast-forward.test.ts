/**
 * Jumping the clock over ticks in which nothing can happen changes no decision: the run makes
 * the same launches, disruptions, evictions and pod start times as a run that ticks every
 * second while work is in flight and polls disruption every 10 s. A controller waiting on a
 * requeue the loop does not report (a drain, a termination) acts up to one busy jump (10 s)
 * later, so disruptions may come a few seconds apart and the bill differs by those seconds.
 */
import { describe, expect, it } from 'vitest';
import { awsNodePool, BOUTIQUE, runFirstCloud, writeScenario } from './support.js';

describe('fast-forward', () => {
  it('decides what ticking every second decides, in far fewer ticks', async () => {
    const path = writeScenario(
      `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: fast-forward
duration: 75m
clouds: [{cloud: aws, region: us-east-1}]
manifests: [${BOUTIQUE}, pools.yaml]
events:
  - {type: replicas, at: 5m, workloads: ["*"], replicas: 6}
  - {type: spotInterruptions, at: [20m]}
  - {type: jobs, name: etl, at: 25m, count: 3, runTime: 10m, requests: {cpu: "1", memory: 2Gi}}
  - {type: replicas, at: 45m, workloads: ["*"], replicas: 2}
`,
      {
        'pools.yaml': awsNodePool('general', {
          instanceTypes: [
            'm6i.large',
            'm6i.xlarge',
            'm6i.2xlarge',
            'c6i.large',
            'c6i.xlarge',
            'c6i.2xlarge',
          ],
          capacityTypes: ['spot', 'on-demand'],
        }),
      },
    );
    const jumping = await runFirstCloud(path);
    const ticking = await runFirstCloud(path, { fastForward: false });
    const decisions = (run: typeof jumping) =>
      run.events
        .filter((e) => e.type !== 'node-terminated' && e.type !== 'eviction')
        .map(({ t: _t, ...e }) => JSON.stringify(e));
    expect(decisions(jumping)).toEqual(decisions(ticking));
    const times = (run: typeof jumping) =>
      run.events.filter((e) => e.type === 'disruption').map((e) => e.t);
    const late = times(jumping).map((t, i) => t - (times(ticking)[i] ?? 0));
    for (const d of late) expect(Math.abs(d)).toBeLessThanOrEqual(20);
    expect(jumping.summary.counters).toEqual(ticking.summary.counters);
    expect(jumping.summary.timeToBound).toEqual(ticking.summary.timeToBound);
    expect(jumping.summary.finalNodesByInstanceType).toEqual(
      ticking.summary.finalNodesByInstanceType,
    );
    expect(Math.abs(jumping.summary.usdSpent - ticking.summary.usdSpent)).toBeLessThan(
      0.002 * ticking.summary.usdSpent,
    );
    expect(jumping.summary.ticks).toBeLessThan(ticking.summary.ticks / 3);
  });
});
