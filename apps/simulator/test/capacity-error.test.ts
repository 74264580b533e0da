/**
 * Insufficient capacity: a launch on an offering the cloud cannot serve fails, the offering is
 * cached as unavailable, and Karpenter launches on another offering.
 */
import { describe, expect, it } from 'vitest';
import { awsNodePool, BOUTIQUE, eventsOf, runFirstCloud, writeScenario } from './support.js';

function scenario(events: string): string {
  return writeScenario(
    `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: ice
duration: 30m
clouds: [{cloud: aws, region: us-east-1}]
manifests: [${BOUTIQUE}, pools.yaml]
${events}`,
    {
      'pools.yaml': awsNodePool('general', {
        instanceTypes: ['m6i.xlarge', 'm6a.xlarge', 'm7i.xlarge'],
      }),
    },
  );
}

describe('an injected capacity error', () => {
  it('falls back to another offering', async () => {
    const plain = await runFirstCloud(scenario(''));
    const [first] = eventsOf(plain, 'node-launched');
    expect(first).toBeDefined();

    const path = scenario(`events:
  - {type: capacityError, instanceType: ${first!.instanceType}, zone: ${first!.zone}, from: 0s, to: 30m}
`);
    const run = await runFirstCloud(path);
    const failed = eventsOf(run, 'launch-failed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed[0]!.message).toContain(`${first!.instanceType} in ${first!.zone}`);
    const launched = eventsOf(run, 'node-launched');
    expect(launched.length).toBeGreaterThanOrEqual(1);
    for (const l of launched)
      expect([l.instanceType, l.zone]).not.toEqual([first!.instanceType, first!.zone]);
    expect(run.summary.pendingPods.final).toBe(0);
    expect(run.summary.counters.failedLaunches).toBe(failed.length);
  });

  it('launches on the offering again once the window is over', async () => {
    const plain = await runFirstCloud(scenario(''));
    const [first] = eventsOf(plain, 'node-launched');
    const path = scenario(`events:
  - {type: capacityError, instanceType: ${first!.instanceType}, from: 0s, to: 5m}
  - {type: replicas, at: 10m, workload: frontend, replicas: 40}
`);
    const run = await runFirstCloud(path);
    const launched = eventsOf(run, 'node-launched');
    expect(
      launched.filter((l) => l.t < 300).every((l) => l.instanceType !== first!.instanceType),
    ).toBe(true);
    expect(launched.some((l) => l.t >= 600 && l.instanceType === first!.instanceType)).toBe(true);
    expect(eventsOf(run, 'scenario').map((e) => e.detail)).toContain(
      `capacity of ${first!.instanceType} in every zone is back`,
    );
  });
});
