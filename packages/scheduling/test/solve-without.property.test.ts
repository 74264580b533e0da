import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { Scheduler, type ExistingNodeInput } from '../src/index.js';
import {
  affinityTerm,
  daemonSet,
  existingNode,
  nodePool,
  pod,
  schedulerOptions,
  spread,
  standardInstanceTypes,
  type TestEnvironment,
} from '../src/testing/index.js';
import { resultsSummary } from './results-summary.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

const podShape = fc.record({
  cpu: fc.constantFrom('100m', '250m', '500m', '1', '1500m'),
  memory: fc.constantFrom('128Mi', '512Mi', '1Gi'),
  label: fc.constantFrom('a', 'b', 'c'),
  kind: fc.constantFrom(
    'plain',
    'zone-spread',
    'host-spread',
    'zone-affinity',
    'host-affinity',
    'host-anti',
    'zone-anti',
    'tolerant',
    'port',
  ),
});

function build(
  shape: { cpu: string; memory: string; label: string; kind: string },
  name: string,
): Pod {
  const labels = { app: shape.label };
  const base = {
    name,
    uid: `uid-${name}`,
    labels,
    requests: { cpu: shape.cpu, memory: shape.memory },
  };
  switch (shape.kind) {
    case 'zone-spread':
      return pod({ ...base, topologySpreadConstraints: [spread(ZONE, labels)] });
    case 'host-spread':
      return pod({ ...base, topologySpreadConstraints: [spread(HOST, labels)] });
    case 'zone-affinity':
      return pod({ ...base, podAffinity: [affinityTerm(ZONE, labels)] });
    case 'host-affinity':
      return pod({ ...base, podAffinity: [affinityTerm(HOST, labels)] });
    case 'host-anti':
      return pod({ ...base, podAntiAffinity: [affinityTerm(HOST, labels)] });
    case 'zone-anti':
      return pod({ ...base, podAntiAffinity: [affinityTerm(ZONE, labels)] });
    case 'tolerant':
      return pod({ ...base, tolerations: [{ key: 'dedicated', operator: 'Exists' }] });
    case 'port':
      return pod({ ...base, hostPorts: [{ port: 8080 }] });
    default:
      return pod(base);
  }
}

const nodeShape = fc.record({
  // test-zone-4: a zone no instance type offers, known only through the nodes in it.
  zone: fc.constantFrom('test-zone-1', 'test-zone-2', 'test-zone-3', 'test-zone-4'),
  tainted: fc.boolean(),
  initialized: fc.boolean(),
  managed: fc.boolean(),
  pods: fc.array(podShape, { maxLength: 4 }),
});

describe('Scheduler.solve without some existing nodes', () => {
  it('decides as a Scheduler built without them, solve after solve on one Scheduler', () => {
    fc.assert(
      fc.property(
        fc.array(nodeShape, { minLength: 1, maxLength: 7 }),
        fc.array(podShape, { minLength: 1, maxLength: 25 }),
        fc.array(fc.array(fc.nat(6), { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom(undefined, '20'),
        (nodeShapes, podShapes, removals, withDaemon, cpuLimit) => {
          const nodes: ExistingNodeInput[] = nodeShapes.map((s, i) =>
            existingNode({
              name: `node-${(i * 7) % 10}${i}`,
              labels: { [ZONE]: s.zone },
              ...(s.tainted
                ? { taints: [{ key: 'dedicated', effect: 'NoSchedule' as const }] }
                : {}),
              initialized: s.initialized,
              ...(s.managed ? { nodePoolName: 'general' } : {}),
              pods: s.pods.map((p, j) => build(p, `bound-${i}-${j}`)),
            }),
          );
          const pods = podShapes.map((p, i) => build(p, `pending-${i}`));
          const env: TestEnvironment = {
            nodePools: [
              nodePool({
                name: 'dedicated',
                weight: 10,
                taints: [{ key: 'dedicated', effect: 'NoSchedule' }],
              }),
              nodePool({ name: 'general', ...(cpuLimit ? { limits: { cpu: cpuLimit } } : {}) }),
            ],
            instanceTypes: standardInstanceTypes(),
            daemonSetPods: withDaemon
              ? [daemonSet({ name: 'agent', requests: { cpu: '200m', memory: '128Mi' } })]
              : [],
            existingNodes: nodes,
          };
          const options = schedulerOptions(env);
          const shared = new Scheduler(options);
          for (const removal of removals) {
            const without = new Set(
              removal
                .filter((i) => i < nodes.length)
                .map((i) => (nodes[i] as ExistingNodeInput).name),
            );
            const fresh = new Scheduler({
              ...options,
              existingNodes: nodes.filter((n) => !without.has(n.name)),
            });
            expect(resultsSummary(shared.solve(pods, { without }))).toEqual(
              resultsSummary(fresh.solve(pods)),
            );
          }
        },
      ),
      { numRuns: 100, seed: 20261202 },
    );
  });

  it('ignores names of nodes it does not have', () => {
    const env: TestEnvironment = {
      nodePools: [nodePool({ name: 'general' })],
      instanceTypes: standardInstanceTypes(),
      existingNodes: [existingNode({ name: 'node-a' })],
    };
    const options = schedulerOptions(env);
    const pods = [build({ cpu: '1', memory: '1Gi', label: 'a', kind: 'plain' }, 'p')];
    const results = new Scheduler(options).solve(pods, { without: new Set(['node-x']) });
    expect(results.existingNodes.map((e) => e.name)).toEqual(['node-a']);
  });
});
