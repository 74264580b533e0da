import { describe, expect, it } from 'vitest';
import {
  existingNode,
  expectScheduled,
  schedule,
  spread,
  unschedulablePods,
  type TestEnvironment,
} from '../src/testing/index.js';

const ZONE = 'topology.kubernetes.io/zone';
/** Existing nodes only: no NodePool, so a pod no node takes stays pending. */
const env = (nodes: TestEnvironment['existingNodes']): TestEnvironment => ({
  nodePools: [],
  instanceTypes: [],
  existingNodes: nodes,
});

describe('pods onto existing nodes', () => {
  it('tries again a node a topology spread turned an earlier pod away from: the counts have moved since', () => {
    const nodes = [
      existingNode({ name: 'a', labels: { [ZONE]: 'zone-a' } }),
      existingNode({ name: 'b', labels: { [ZONE]: 'zone-b' } }),
    ];
    // Pod 2 cannot go to "a" (skew 2); pod 3, alike in every other respect, can.
    const pods = unschedulablePods(4, {
      labels: { app: 'web' },
      requests: { cpu: '100m' },
      topologySpreadConstraints: [spread(ZONE, { app: 'web' })],
    });
    const r = schedule(env(nodes), pods);
    expect(r.podErrors.size).toBe(0);
    const on = pods.map((p) => expectScheduled(r, p));
    expect(on.filter((o) => o.kind === 'existing' && o.name === 'a')).toHaveLength(2);
    expect(on.filter((o) => o.kind === 'existing' && o.name === 'b')).toHaveLength(2);
  });

  it('gives each pod of a host port its own node, and leaves the rest pending once every node has the port', () => {
    const nodes = Array.from({ length: 50 }, (_, i) => existingNode({ name: `n${i}` }));
    const pods = unschedulablePods(60, { requests: { cpu: '100m' }, hostPorts: [{ port: 8080 }] });
    const r = schedule(env(nodes), pods);
    const placed = pods.filter((p) => !r.podErrors.has(p)).map((p) => expectScheduled(r, p));
    expect(new Set(placed.map((o) => (o.kind === 'existing' ? o.name : '')))).toHaveProperty(
      'size',
      50,
    );
    expect(r.podErrors.size).toBe(10);
  });
});
