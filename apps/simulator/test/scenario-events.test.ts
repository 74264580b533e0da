/**
 * What each kind of scenario event does to the cluster.
 */
import { describe, expect, it } from 'vitest';
import { awsNodePool, BOUTIQUE, eventsOf, runFirstCloud, writeScenario } from './support.js';

function scenario(duration: string, events: string, files: Record<string, string> = {}): string {
  return writeScenario(
    `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: events
duration: ${duration}
clouds: [{cloud: aws, region: us-east-1}]
manifests: [${BOUTIQUE}, pools.yaml]
karpenter: {nodeRepair: true}
events:
${events}`,
    {
      'pools.yaml': awsNodePool('general', {
        instanceTypes: ['m6i.large', 'm6i.xlarge', 'm6i.2xlarge'],
      }),
      ...files,
    },
  );
}

describe('scenario events', () => {
  it('a NodePool change drifts its nodes, which are replaced', async () => {
    const run = await runFirstCloud(
      scenario(
        '1h',
        `  - {type: nodePoolChange, at: 10m, nodePool: general, patch: {spec: {template: {metadata: {labels: {team: web}}}}}}\n`,
      ),
    );
    const drift = eventsOf(run, 'disruption').filter((e) => e.reason === 'Drifted');
    expect(drift.length).toBeGreaterThanOrEqual(1);
    expect(drift[0]!.t).toBeGreaterThanOrEqual(600);
    expect(drift[0]!.replacements).toBe(1);
    expect(run.summary.pendingPods.final).toBe(0);
    expect(run.summary.nodes.final).toBe(1);
  });

  it('a NodeClass change drifts the nodes launched from it once their drift check comes', async () => {
    const run = await runFirstCloud(
      scenario(
        '1h',
        `  - {type: nodeClassChange, at: 10m, nodeClass: default, patch: {spec: {amiSelectorTerms: [{alias: "al2023@latest"}]}}}\n`,
      ),
    );
    const drift = eventsOf(run, 'disruption').filter((e) => e.reason === 'Drifted');
    expect(drift.length).toBe(1);
    expect(drift[0]!.t).toBeGreaterThanOrEqual(600);
    expect(drift[0]!.t).toBeLessThanOrEqual(600 + 301 + 15);
  });

  it('a failed node loses its pods after 300 s, and node repair replaces it after 10 minutes', async () => {
    const run = await runFirstCloud(scenario('1h', `  - {type: nodeFailure, at: 10m}\n`));
    const [failure] = eventsOf(run, 'node-failure');
    expect(failure?.t).toBe(600);
    const lost = eventsOf(run, 'scenario').find((e) => e.event === 'nodeFailure');
    expect(lost?.t).toBe(900);
    const repaired = eventsOf(run, 'disruption').find((e) => e.reason === 'Unhealthy');
    expect(repaired?.nodes).toEqual([failure!.node]);
    expect(repaired!.t).toBeGreaterThanOrEqual(1200);
    expect(run.summary.pendingPods.final).toBe(0);
    expect(run.summary.counters.nodeFailures).toBe(1);
  });

  it('trace pods run for their duration and complete; Jobs complete all their pods', async () => {
    const run = await runFirstCloud(
      scenario(
        '2h',
        `  - {type: trace, file: pods.csv}
  - {type: jobs, name: etl, at: 30m, count: 2, completions: 3, parallelism: 3, runTime: 10m, requests: {cpu: 500m, memory: 512Mi}}
`,
        {
          'pods.csv':
            'arrival,duration,namespace,cpu,memory,labels,owner\n5m,20m,batch,1,1Gi,app=report;tier=batch,Job/report\n10m,1h,batch,2,2Gi,,Job/adhoc\n',
        },
      ),
    );
    expect(run.summary.counters.podsCompleted).toBe(2 + 2 * 3);
    expect(run.samples.at(-1)!.runningPods).toBe(run.samples.find((s) => s.t === 300)!.runningPods);
  });
});
