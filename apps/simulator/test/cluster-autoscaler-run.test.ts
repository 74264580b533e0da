/**
 * The Cluster Autoscaler baseline in the engine, on the same scenario machinery as Karpenter:
 * scale-up within a scan interval, scale-down only after 10 minutes unneeded and 10 minutes
 * after the last scale-up, a node group backed off after the cloud refuses a launch, a spot
 * interruption drained and replaced, an unready node removed after 20 minutes unneeded
 * (`--scale-down-unready-time`), a machine whose Node does not register within 15 minutes
 * deleted and its group backed off (`--max-node-provision-time`), and the same seed giving the
 * same run.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario, type RunOutput } from '../src/index.js';
import { autoscalerFactory } from '../src/engine/autoscalers.js';
import { runScenario } from '../src/engine/run.js';
import { awsNodePool, eventsOf, scenarioYaml, writeScenario } from './support.js';

async function runCa(
  events: string,
  o: { duration?: string; ca?: string; pool?: string; extra?: string } = {},
): Promise<RunOutput> {
  const path = writeScenario(
    scenarioYaml(
      `clouds:
  - {cloud: aws, region: us-east-1, manifests: [pools.yaml]}
autoscalers: [cluster-autoscaler]
clusterAutoscaler: ${o.ca ?? '{expander: least-waste}'}
${o.extra ?? ''}
events:
${events}`,
      { duration: o.duration ?? '1h' },
    ),
    {
      'pools.yaml':
        o.pool ??
        awsNodePool('general', { instanceTypes: ['m6i.large', 'm6i.xlarge', 'm6i.2xlarge'] }),
    },
  );
  const scenario = await loadScenario(path);
  return runScenario(scenario, scenario.clouds[0]!, {
    solver: 'ts',
    autoscaler: autoscalerFactory('cluster-autoscaler', scenario),
  });
}

describe('the Cluster Autoscaler baseline', () => {
  it('scales up within a scan interval and scales down only after 10 minutes unneeded and 10 minutes after a scale-up', async () => {
    const run = await runCa(`  - {type: replicas, at: 5m, workload: frontend, replicas: 30}
  - {type: replicas, at: 20m, workload: frontend, replicas: 1}
`);
    expect(run.autoscaler).toBe('cluster-autoscaler');
    expect(run.id).toBe('cluster-autoscaler/aws/us-east-1');
    const launches = eventsOf(run, 'node-launched');
    const afterScaleUp = launches.filter((e) => e.t >= 300);
    expect(afterScaleUp.length).toBeGreaterThan(0);
    // The pods go pending at 5m; the next 10 s loop launches (within one more 1 s tick).
    expect(afterScaleUp[0]!.t).toBeLessThanOrEqual(311);
    const lastScaleUp = Math.max(...launches.map((e) => e.t));
    const removals = eventsOf(run, 'disruption');
    expect(removals.length).toBeGreaterThan(0);
    for (const r of removals) {
      expect(r.t).toBeGreaterThanOrEqual(1200 + 600); // unneeded from 20m, for 10 minutes
      expect(r.t).toBeGreaterThanOrEqual(lastScaleUp + 600);
      expect(['Empty', 'Underutilized']).toContain(r.reason);
    }
    expect(run.summary.nodes.final).toBeLessThan(run.summary.nodes.peak);
    expect(run.summary.pendingPods.final).toBe(0);
  });

  it('removes nothing within 10 minutes of a scale-up, even a node unneeded for longer', async () => {
    // Frontend nodes are unneeded from 10m (due at 20m); a Job needing a new node arrives at 18m.
    const run = await runCa(`  - {type: replicas, at: 5m, workload: frontend, replicas: 30}
  - {type: replicas, at: 10m, workload: frontend, replicas: 1}
  - {type: jobs, name: big, at: 18m, runTime: 1h, requests: {cpu: "7", memory: 1Gi}}
`);
    const scaleUp = eventsOf(run, 'node-launched').find((e) => e.t >= 18 * 60);
    expect(scaleUp?.instanceType).toBe('m6i.2xlarge');
    const removals = eventsOf(run, 'disruption');
    expect(removals.length).toBeGreaterThan(0);
    expect(Math.min(...removals.map((r) => r.t))).toBeGreaterThanOrEqual(scaleUp!.t + 600);
  });

  it('backs a node group off after the cloud refuses a launch, and takes another group meanwhile', async () => {
    const run = await runCa(
      // m6i.large is the group least-waste takes for these pods.
      `  - {type: capacityError, from: 0s, to: 1h, instanceType: m6i.large}
  - {type: replicas, at: 5m, workload: frontend, replicas: 30}
`,
      { ca: '{expander: least-waste}' },
    );
    const failed = eventsOf(run, 'launch-failed');
    expect(failed.length).toBeGreaterThan(0);
    const first = failed[0]!;
    expect(first.reason).toBe('InsufficientCapacityError');
    expect(first.message).toMatch(/node group general-m6i\.large: .*backed off for 300 s/);
    // No second try of that group within its 5-minute backoff; after it, the next try doubles it.
    expect(failed.filter((f) => f.t < first.t + 300)).toHaveLength(1);
    expect(eventsOf(run, 'node-launched').some((e) => e.instanceType === 'm6i.large')).toBe(false);
    // Another group launches in a later loop, and the pods are placed.
    const other = eventsOf(run, 'node-launched').filter(
      (e) => e.t > first.t && e.instanceType !== 'm6i.large',
    );
    expect(other.length).toBeGreaterThan(0);
    expect(other[0]!.t - first.t).toBeLessThanOrEqual(11);
    expect(run.summary.pendingPods.final).toBe(0);
  });

  it('drains a node whose spot instance is interrupted and scales up for its pods', async () => {
    const run = await runCa(
      `  - {type: replicas, at: 0s, workload: frontend, replicas: 6}
  - {type: spotInterruptions, at: [15m]}
`,
      {
        duration: '40m',
        pool: awsNodePool('general', {
          instanceTypes: ['m6i.large', 'm6i.xlarge'],
          capacityTypes: ['spot'],
        }),
      },
    );
    const [interruption] = eventsOf(run, 'interruption');
    expect(interruption).toBeDefined();
    const evictions = eventsOf(run, 'eviction').filter(
      (e) => e.t >= interruption!.t && e.t < interruption!.t + 5,
    );
    expect(evictions.length).toBeGreaterThan(0);
    const replacement = eventsOf(run, 'node-launched').find((e) => e.t > interruption!.t);
    expect(replacement).toBeDefined();
    expect(replacement!.t - interruption!.t).toBeLessThanOrEqual(12);
    expect(run.summary.pendingPods.final).toBe(0);
  });

  it('removes a failed (unready) node once it has been unneeded for 20 minutes, not after the 10 of a Ready one', async () => {
    const run = await runCa(
      `  - {type: replicas, at: 0s, workload: frontend, replicas: 6}
  - {type: nodeFailure, at: 30m}
`,
      { duration: '1h30m' },
    );
    const [failure] = eventsOf(run, 'node-failure');
    expect(failure).toBeDefined();
    const removal = eventsOf(run, 'disruption').find((d) => d.nodes.includes(failure!.node));
    expect(removal?.reason).toBe('Unready');
    // Unneeded from the failure at the earliest (its pods fit elsewhere), or from the eviction of
    // its pods 300 s later; removed 20 minutes after that, within a scan interval or two.
    expect(removal!.t).toBeGreaterThanOrEqual(failure!.t + 1200);
    expect(removal!.t).toBeLessThanOrEqual(failure!.t + 300 + 1200 + 20);
    const gone = eventsOf(run, 'node-terminated').find((e) => e.node === failure!.node);
    expect(gone).toBeDefined();
    expect(gone!.t - removal!.t).toBeLessThanOrEqual(2);
    expect(run.summary.counters.disruptions.Unready).toBe(1);
    expect(run.summary.pendingPods.final).toBe(0);
  });

  it('deletes a machine whose Node has not registered 15 minutes after its launch, and backs its group off', async () => {
    // Nodes take 20 minutes to register on this cloud: CA gives up on each at 15.
    const run = await runCa(
      `  - {type: replicas, at: 1m, workload: frontend, replicas: 30}
`,
      {
        duration: '40m',
        extra: 'nodeStartup:\n  aws: {launch: 5s, boot: 20m, registration: 15s}',
      },
    );
    const launches = eventsOf(run, 'node-launched');
    const first = launches[0]!; // for the shop's pods at time 0
    expect(first.t).toBe(0);
    const failed = eventsOf(run, 'launch-failed');
    const timeout = failed.find((f) => f.nodeClaim === first.node);
    expect(timeout?.reason).toBe('NodeProvisionTimeout');
    expect(timeout!.message).toMatch(/did not register within 900 s .*backed off for 300 s/);
    expect(timeout!.t - first.t).toBeGreaterThanOrEqual(900);
    expect(timeout!.t - first.t).toBeLessThanOrEqual(911);
    // The machine is gone at once, and no Node of it ever registered (nothing allocatable then).
    const gone = eventsOf(run, 'node-terminated').find((e) => e.node === first.node);
    expect(gone!.t).toBe(timeout!.t);
    expect(run.samples.filter((s) => s.t < timeout!.t).every((s) => s.allocatable.cpu === 0)).toBe(
      true,
    );
    // Its group launches nothing more during its 5-minute backoff.
    const group = first.instanceType;
    expect(
      launches.filter(
        (e) => e.instanceType === group && e.t > timeout!.t && e.t < timeout!.t + 300,
      ),
    ).toEqual([]);
    // Other machines of the group timing out within the backoff do not lengthen it.
    const more = failed.filter(
      (f) => f.t > timeout!.t && f.t < timeout!.t + 300 && f.message.includes(`-${group}:`),
    );
    expect(more.length).toBeGreaterThan(0);
    for (const f of more) expect(f.message).toMatch(/backed off for 300 s/);
    expect(run.summary.counters.failedLaunches).toBe(failed.length);
  });

  it('gives the same run for the same seed, with the random expander', async () => {
    const events = `  - {type: replicas, at: 2m, workload: frontend, replicas: 20}
`;
    const o = { duration: '20m', ca: '{expander: random}' };
    expect(JSON.stringify(await runCa(events, o))).toBe(JSON.stringify(await runCa(events, o)));
  });
});
