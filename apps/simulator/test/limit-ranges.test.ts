/**
 * A scenario's LimitRanges are the cluster's (issue 15, item 9): the in-memory API server
 * admits pods with their defaults, and a DaemonSet whose containers request nothing counts the
 * defaults as daemonset overhead, so a node claim is sized for it.
 */
import { describe, expect, it } from 'vitest';
import { eventsOf, runFirstCloud, writeScenario } from './support.js';

function scenario(withLimitRange: boolean): string {
  return writeScenario(
    `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: limit-ranges
duration: 10m
clouds: [{cloud: sim}]
manifests: [app.yaml]
`,
    {
      'app.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: app, resources: {requests: {cpu: 1500m, memory: 256Mi}}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: agent}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.sim, kind: SimNodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c-2x-amd64-linux, c-4x-amd64-linux]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
${
  withLimitRange
    ? `---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: kube-system}
spec:
  limits: [{type: Container, defaultRequest: {cpu: 500m, memory: 128Mi}}]
`
    : ''
}`,
    },
  );
}

describe('LimitRanges in a scenario', () => {
  it('size node claims for a DaemonSet that requests nothing but gets the namespace defaults', async () => {
    const withDefaults = await runFirstCloud(scenario(true));
    expect(eventsOf(withDefaults, 'node-launched').map((l) => l.instanceType)).toEqual([
      'c-4x-amd64-linux',
    ]);
    const without = await runFirstCloud(scenario(false));
    expect(eventsOf(without, 'node-launched').map((l) => l.instanceType)).toEqual([
      'c-2x-amd64-linux',
    ]);
  });
});
