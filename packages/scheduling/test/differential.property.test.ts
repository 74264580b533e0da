import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { Scheduler } from '../src/index.js';
import {
  affinityTerm,
  daemonSet,
  existingNode,
  nodePool,
  pod,
  schedulerOptions,
  spread,
  standardInstanceTypes,
  validateAssignment,
  type TestEnvironment,
} from '../src/testing/index.js';
import { resultsSummary } from './results-summary.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

/** A pod shape fast-check draws; built into a pod with a stable name. */
const podShape = fc.record({
  cpu: fc.constantFrom('100m', '250m', '500m', '1', '1500m', '3'),
  memory: fc.constantFrom('128Mi', '512Mi', '1Gi', '4Gi'),
  label: fc.constantFrom('a', 'b', 'c'),
  kind: fc.constantFrom(
    'plain',
    'zone-spread',
    'host-spread',
    'zone-affinity',
    'host-anti',
    'zone-selector',
    'tolerant',
    'port',
    'prefer-zone',
  ),
});

function build(
  shape: { cpu: string; memory: string; label: string; kind: string },
  i: number,
): Pod {
  const labels = { app: shape.label };
  const base = {
    name: `p-${i}`,
    uid: `uid-${String(i).padStart(4, '0')}`,
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
    case 'host-anti':
      return pod({ ...base, podAntiAffinity: [affinityTerm(HOST, labels)] });
    case 'zone-selector':
      return pod({ ...base, nodeSelector: { [ZONE]: 'test-zone-2' } });
    case 'tolerant':
      return pod({ ...base, tolerations: [{ key: 'dedicated', operator: 'Exists' }] });
    case 'port':
      return pod({ ...base, hostPorts: [{ port: 8080 }] });
    case 'prefer-zone':
      return pod({
        ...base,
        nodePreferences: [
          { weight: 1, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-3'] }] },
        ],
      });
    default:
      return pod(base);
  }
}

/** A comparable summary of a result. */
describe('the WASM and TypeScript solvers', () => {
  it('give identical scheduling results on random batches', () => {
    fc.assert(
      fc.property(
        fc.array(podShape, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(undefined, '12', '40'),
        (shapes, withDaemon, withExisting, cpuLimit) => {
          const pods = shapes.map(build);
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
            existingNodes: withExisting ? [existingNode({ name: 'node-1' })] : [],
          };
          const options = schedulerOptions(env);
          const wasm = new Scheduler({ ...options, solver: 'wasm' }).solve(pods);
          const ts = new Scheduler({ ...options, solver: 'ts' }).solve(pods);
          expect(resultsSummary(wasm)).toEqual(resultsSummary(ts));
          validateAssignment(wasm, { ...options, pods });
        },
      ),
      { numRuns: 60, seed: 20261129 },
    );
  });
});
