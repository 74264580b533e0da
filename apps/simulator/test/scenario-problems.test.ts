/**
 * A scenario with a mistake does not run: every problem is one line `file:line field: message`.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../src/index.js';
import { problemsOf, scenarioYaml, writeScenario } from './support.js';

describe('a scenario with a mistake', () => {
  it('names an unknown field, its line, and the field it probably meant', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: replicas
    at: 1h
    workload: frontend
    replica: 3
`),
    );
    expect(await problemsOf(path)).toEqual(
      [
        'scenario.yaml:11 events[0].replica: unknown field; did you mean "replicas"? (known: type, at, workload, workloads, replicas)',
        'scenario.yaml:8 events[0].replicas: required',
      ].sort((a, b) => lineOf(a) - lineOf(b)),
    );
  });

  it('says a file of several YAML documents is not a scenario (a manifest file given by mistake), not what the YAML library would call it', async () => {
    const path = writeScenario(
      'apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Secret\n',
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:3 a scenario is one YAML document and this file holds several (a manifest file? a scenario names those under `manifests:`)',
    ]);
  });

  it('names the workloads the manifests lack along with the schema problems, not after they are fixed', async () => {
    const path = writeScenario(
      scenarioYaml(`colour: blue
events:
  - type: replicas
    at: 1h
    workload: frontent
    replica: 3
  - {type: replicas, at: 30m, workload: checkout, replicas: 2}
  - {type: nodePoolChange, at: 90m, nodePool: genral, patch: {spec: {weight: 2}}}
`),
    );
    const problems = await problemsOf(path);
    expect(problems.map((p) => p.replace(/ \(they have .*\)$| \(known: .*\)$/, ''))).toEqual([
      'scenario.yaml:7 colour: unknown field',
      'scenario.yaml:9 events[0].replicas: required',
      'scenario.yaml:11 events[0].workload: no Deployment, ReplicaSet or StatefulSet named frontent in the manifests',
      'scenario.yaml:12 events[0].replica: unknown field; did you mean "replicas"?',
      'scenario.yaml:13 events[1].workload: no Deployment, ReplicaSet or StatefulSet named checkout in the manifests',
      'scenario.yaml:14 events[2].nodePool: no NodePool named genral (there are: default)',
    ]);
  });

  it('names a Cluster Autoscaler node group NodePool the manifests lack (the run failed at its start)', async () => {
    const path = writeScenario(
      scenarioYaml(`autoscalers: [cluster-autoscaler]
clusterAutoscaler:
  nodeGroups:
    - {nodePool: nope, instanceTypes: [m6i.large]}
`),
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:10 clusterAutoscaler.nodeGroups[0].nodePool: no NodePool named nope (there are: default)',
    ]);
  });

  it('names, per cloud, a node group instance type the cloud lacks or its NodePool does not allow (the run failed at its start)', async () => {
    const path = writeScenario(
      scenarioYaml(`clouds: [{cloud: azure, region: eastus}, {cloud: aws, region: us-east-1}]
autoscalers: [karpenter, cluster-autoscaler]
clusterAutoscaler:
  nodeGroups:
    - nodePool: default
      instanceTypes: [Standard_D2s_v5]
`),
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:12 clusterAutoscaler.nodeGroups[0].instanceTypes[0]: aws us-east-1: NodePool default does not allow on-demand Standard_D2s_v5 on this cloud',
    ]);
  });

  it('stops at the schema problems when a field the later checks need is wrong', async () => {
    const path = writeScenario(
      scenarioYaml(`clouds: [{cloud: gcp}]
events:
  - {type: replicas, at: 1h, workload: frontent, replicas: 3}
`),
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:7 clouds[0].cloud: must be one of "azure", "aws", "sim"; got "gcp"',
    ]);
  });

  it('refuses a replica count above the 400,000-pod cap instead of running out of memory', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: replicas
    at: 1h
    workload: frontend
    replicas: 100000000
`),
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:11 events[0].replicas: must be <= 400000',
    ]);
  });

  it('refuses a scenario longer than 31 days', async () => {
    const path = writeScenario(scenarioYaml('', { duration: '99999999d' }));
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:4 duration: must be at most 31d (a month of simulated time); got "99999999d"',
    ]);
  });

  it('refuses an event before time 0', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: replicas
    at: -5m
    workload: frontend
    replicas: 3
`),
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:9 events[0].at: -5m is before time 0 (the scenario starts at 0s)',
    ]);
  });

  it('refuses a start that is not a calendar date instead of rolling it into the next month', async () => {
    const path = writeScenario(scenarioYaml('start: "2026-02-30T00:00:00Z"\nevents: []\n'));
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:7 start: "2026-02-30T00:00:00Z" is not a date: 2026-02 has 28 days',
    ]);
  });

  it('takes the last day of a month as a start, in a leap year too', async () => {
    const path = writeScenario(scenarioYaml('start: "2028-02-29T12:00:00Z"\nevents: []\n'));
    expect(await problemsOf(path)).toEqual([]);
  });

  it('refuses a curve without points', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: replicasCurve
    workloads: ["*"]
    curve:
      shape: sine
      points: []
`),
    );
    expect(await problemsOf(path)).toEqual([
      'scenario.yaml:12 events[0].curve.points: must have at least 1 item(s)',
    ]);
  });

  it('refuses a curve that does not say its points at all', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: replicasCurve
    workloads: ["*"]
    curve: {shape: step}
`),
    );
    expect(await problemsOf(path)).toEqual(['scenario.yaml:10 events[0].curve.points: required']);
  });

  it('refuses a trace row with a negative request, naming the trace file, its line and the column', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: trace
    file: pods.csv
`),
      {
        'pods.csv': `arrival,duration,namespace,cpu,memory,gpu,labels,owner
0,10m,batch,500m,1Gi,,app=etl,Job/etl
30s,10m,batch,-500m,1Gi,,app=etl,Job/etl
`,
      },
    );
    const problems = await problemsOf(path);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/pods\.csv:3 cpu: negative request "-500m"$/);
  });

  it('names a workload the manifests do not have, and what they have', async () => {
    const path = writeScenario(
      scenarioYaml(`events:
  - type: replicas
    at: 1h
    workload: frontent
    replicas: 3
`),
    );
    const [problem] = await problemsOf(path);
    expect(problem).toMatch(
      /^scenario\.yaml:10 events\[0\]\.workload: no Deployment, ReplicaSet or StatefulSet named frontent in the manifests \(they have default\/frontend, default\/adservice, /,
    );
  });

  it('reports every problem at once, in line order', async () => {
    const path = writeScenario(
      scenarioYaml(`seed: -1
events:
  - type: capacityError
    from: 2h
    to: 1h
  - type: spotInterruptions
    ratePerHour: 1
    at: [1h]
`),
    );
    expect(await problemsOf(path)).toEqual(['scenario.yaml:7 seed: must be >= 0']);
    const fixed = writeScenario(
      scenarioYaml(`events:
  - type: capacityError
    from: 1h
    to: 30m
  - type: spotInterruptions
    ratePerHour: 1
    at: [1h]
`),
    );
    expect(await problemsOf(fixed)).toEqual([
      'scenario.yaml:10 events[0].to: must be after from (1h)',
      'scenario.yaml:11 events[1]: needs exactly one of ratePerHour and at',
    ]);
  });

  it('runs nothing for a scenario with a YAML error', async () => {
    const path = writeScenario(scenarioYaml(`events:\n  - type: replicas\n  at: 1h\n`));
    await expect(loadScenario(path)).rejects.toThrow(
      /^scenario\.yaml:|\/scenario\.yaml:\d+ YAML: /,
    );
  });
});

function lineOf(problem: string): number {
  return Number(/:(\d+) /.exec(problem)?.[1] ?? 0);
}
