/**
 * Random batches rich in required topology between groups (anti-affinity and affinity toward
 * another group's pods, spreads, zone selectors that leave some claims' zones open): every
 * result must pass `validateAssignment`, which judges each rule on all the zones a node claim
 * may still launch in, and the WASM and TypeScript solvers must agree placement for placement.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { Scheduler } from '../src/index.js';
import {
  affinityTerm,
  existingNode,
  instanceType,
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
const LABELS = ['a', 'b', 'c'] as const;

const podShape = fc.record({
  cpu: fc.constantFrom('250m', '500m', '1', '1500m', '3'),
  label: fc.constantFrom(...LABELS),
  /** The group a cross-group term selects. */
  other: fc.constantFrom(...LABELS),
  kind: fc.constantFrom(
    'plain',
    'plain',
    'zone-anti',
    'zone-anti-self',
    'host-anti',
    'zone-affinity',
    'zone-affinity-self',
    'zone-spread',
    'host-spread',
    'zone-selector',
    'zone-not-in',
    'anti-and-spread',
  ),
  zone: fc.constantFrom('test-zone-1', 'test-zone-2', 'test-zone-3'),
});

type Shape = typeof podShape extends fc.Arbitrary<infer T> ? T : never;

function build(s: Shape, i: number): Pod {
  const labels = { app: s.label };
  const other = { app: s.other };
  const base = {
    name: `p-${i}`,
    uid: `uid-${String(i).padStart(4, '0')}`,
    labels,
    requests: { cpu: s.cpu, memory: '512Mi' },
  };
  switch (s.kind) {
    case 'zone-anti':
      return pod({ ...base, podAntiAffinity: [affinityTerm(ZONE, other)] });
    case 'zone-anti-self':
      return pod({ ...base, podAntiAffinity: [affinityTerm(ZONE, labels)] });
    case 'host-anti':
      return pod({ ...base, podAntiAffinity: [affinityTerm(HOST, other)] });
    case 'zone-affinity':
      return pod({ ...base, podAffinity: [affinityTerm(ZONE, other)] });
    case 'zone-affinity-self':
      return pod({ ...base, podAffinity: [affinityTerm(ZONE, labels)] });
    case 'zone-spread':
      return pod({ ...base, topologySpreadConstraints: [spread(ZONE, labels)] });
    case 'host-spread':
      return pod({ ...base, topologySpreadConstraints: [spread(HOST, labels)] });
    case 'zone-selector':
      return pod({ ...base, nodeSelector: { [ZONE]: s.zone } });
    case 'zone-not-in':
      return pod({
        ...base,
        nodeRequirements: [{ key: ZONE, operator: 'NotIn', values: [s.zone] }],
      });
    case 'anti-and-spread':
      return pod({
        ...base,
        podAntiAffinity: [affinityTerm(ZONE, other)],
        topologySpreadConstraints: [spread(HOST, labels)],
      });
    default:
      return pod(base);
  }
}

/** A running pod of one of the groups, on an existing node (some with required anti-affinity). */
const runningShape = fc.record({
  label: fc.constantFrom(...LABELS),
  other: fc.constantFrom(...LABELS),
  anti: fc.boolean(),
  zone: fc.constantFrom('test-zone-1', 'test-zone-2', 'test-zone-3'),
});

describe('required topology on random batches', () => {
  it('holds in every zone a node claim may launch in, with both solvers agreeing', () => {
    fc.assert(
      fc.property(
        fc.array(podShape, { minLength: 1, maxLength: 40 }),
        fc.array(runningShape, { maxLength: 2 }),
        fc.boolean(),
        (shapes, running, zonalPool) => {
          const pods = shapes.map(build);
          const env: TestEnvironment = {
            nodePools: [
              // A heavier pool whose claims are always in zone 1 or 2, next to one that leaves
              // the zone open.
              ...(zonalPool
                ? [
                    nodePool({
                      name: 'zonal',
                      weight: 10,
                      requirements: [
                        { key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-2'] },
                      ],
                    }),
                  ]
                : []),
              nodePool({ name: 'general' }),
            ],
            // `zone-3-only` makes some claims' options offer fewer zones than their requirements allow.
            instanceTypes: [
              ...standardInstanceTypes(),
              instanceType({
                name: 'zone-3-only',
                cpu: '2',
                memory: '4Gi',
                price: 0.05,
                offerings: [{ zone: 'test-zone-3', capacityType: 'on-demand', price: 0.05 }],
              }),
            ],
            existingNodes: running.map((r, i) =>
              existingNode({
                name: `node-${i}`,
                labels: { [ZONE]: r.zone },
                allocatable: { cpu: '2', memory: '4Gi', pods: '110' },
                pods: [
                  pod({
                    name: `running-${i}`,
                    labels: { app: r.label },
                    phase: 'Running',
                    requests: { cpu: '500m' },
                    ...(r.anti ? { podAntiAffinity: [affinityTerm(ZONE, { app: r.other })] } : {}),
                  }),
                ],
              }),
            ),
          };
          const options = schedulerOptions(env);
          const wasm = new Scheduler({ ...options, solver: 'wasm' }).solve(pods);
          const ts = new Scheduler({ ...options, solver: 'ts' }).solve(pods);
          expect(resultsSummary(ts)).toEqual(resultsSummary(wasm));
          validateAssignment(wasm, { ...options, pods });
          validateAssignment(ts, { ...options, pods });
        },
      ),
      { numRuns: 150, seed: 20261215 },
    );
  });
});
