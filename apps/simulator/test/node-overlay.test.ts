/**
 * NodeOverlays in a scenario: with `karpenter.nodeOverlay: true` (the NodeOverlay gate) the
 * manifests' overlays change the prices the controllers launch by; off (the default, as
 * upstream) they change nothing and a note says so.
 */
import { describe, expect, it } from 'vitest';
import { eventsOf, runFirstCloud, writeScenario } from './support.js';

const types = ['c-2x-amd64-linux', 's-2x-amd64-linux'];

function scenario(gate: string): string {
  return writeScenario(
    `apiVersion: sim.karpenter-ts.io/v1alpha1
kind: Scenario
name: overlay
duration: 10m
clouds: [{cloud: sim}]
manifests: [app.yaml, overlay.yaml]
${gate}`,
    {
      'app.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: app, resources: {requests: {cpu: 500m, memory: 256Mi}}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.sim, kind: SimNodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [${types.join(', ')}]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`,
      // s-2x (more memory) is dearer than c-2x in the catalog; the overlay makes it the cheapest.
      'overlay.yaml': `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: cheap-s}
spec:
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [s-2x-amd64-linux]}]
  price: "0.001"
`,
    },
  );
}

describe('NodeOverlays in a scenario', () => {
  it('with karpenter.nodeOverlay the overlaid type launches; without, the catalog cheapest does', async () => {
    const on = await runFirstCloud(scenario('karpenter: {nodeOverlay: true}'));
    expect(eventsOf(on, 'node-launched').map((l) => l.instanceType)).toEqual(['s-2x-amd64-linux']);
    const off = await runFirstCloud(scenario(''));
    expect(eventsOf(off, 'node-launched').map((l) => l.instanceType)).toEqual(['c-2x-amd64-linux']);
    expect(off.notes.join('\n')).toContain('1 NodeOverlay(s) not applied');
  });
});
