/**
 * Random batches of pods whose volumes pin them to zones (one or two alternatives, some with a
 * zone spread, some sharing a CSI volume on an existing node with an attach limit), NodePools
 * that restrict zones with and without minValues, under Strict and BestEffort: every result
 * must pass `validateAssignment`, which checks each pod's volume alternatives against every
 * zone its node may still launch in, the attach limits, and that no claim lists fewer values
 * than its minValues; and the WASM and TypeScript solvers must agree.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { Requirement } from '../src/requirement.js';
import { Requirements } from '../src/requirements.js';
import { Scheduler, type SchedulingResults } from '../src/index.js';
import {
  existingNode,
  nodePool,
  pod,
  schedulerOptions,
  spread,
  standardInstanceTypes,
  validateAssignment,
  type TestEnvironment,
} from '../src/testing/index.js';
import type { PodVolumes } from '../src/volumes.js';

const ZONE = 'topology.kubernetes.io/zone';
const ZONES = ['test-zone-1', 'test-zone-2', 'test-zone-3'] as const;

const podShape = fc.record({
  cpu: fc.constantFrom('250m', '500m', '1', '3'),
  /** Zones of each volume alternative (empty: a pod without volumes). */
  alternatives: fc.array(fc.subarray([...ZONES], { minLength: 1 }), { maxLength: 2 }),
  spread: fc.boolean(),
  /** A CSI volume (index into 3 shared ones), or none. */
  attach: fc.option(fc.integer({ min: 0, max: 2 })),
});
type Shape = typeof podShape extends fc.Arbitrary<infer T> ? T : never;

function summary(r: SchedulingResults): unknown {
  const n = (p: Pod) => p.metadata?.name;
  return {
    claims: r.newNodeClaims.map((c) => ({
      pool: c.nodePoolName,
      pods: c.pods.map(n),
      requirements: c.requirements.toString(),
      relaxed: c.minValuesRelaxed,
    })),
    existing: r.existingNodes.map((e) => ({ name: e.name, pods: e.pods.map(n) })),
    errors: [...r.podErrors].map(([p, e]) => [n(p), e]),
  };
}

describe('volume topology on random batches', () => {
  it('never places a pod outside a zone its volumes allow, nor emits an invalid claim', () => {
    fc.assert(
      fc.property(
        fc.array(podShape, { minLength: 1, maxLength: 30 }),
        fc.subarray([...ZONES], { minLength: 1 }),
        fc.boolean(),
        fc.constantFrom('Strict', 'BestEffort') as fc.Arbitrary<'Strict' | 'BestEffort'>,
        (shapes: Shape[], poolZones, minValues, policy) => {
          const volumes = new Map<Pod, PodVolumes>();
          const pods = shapes.map((s, i) => {
            const p = pod({
              name: `p-${i}`,
              uid: `uid-${String(i).padStart(4, '0')}`,
              labels: { app: 'db' },
              requests: { cpu: s.cpu },
              ...(s.spread ? { topologySpreadConstraints: [spread(ZONE, { app: 'db' })] } : {}),
            });
            volumes.set(p, {
              requirements: s.alternatives.map(
                (zones) => new Requirements(Requirement.create(ZONE, 'In', zones)),
              ),
              attachments:
                s.attach === null ? [] : [{ driver: 'csi.test', volume: `default/v-${s.attach}` }],
            });
            return p;
          });
          const env: TestEnvironment = {
            nodePools: [
              nodePool({
                name: 'zonal',
                weight: 10,
                requirements: [
                  {
                    key: ZONE,
                    operator: 'In',
                    values: poolZones,
                    ...(minValues ? { minValues: poolZones.length } : {}),
                  },
                ],
              }),
              nodePool({ name: 'general' }),
            ],
            instanceTypes: standardInstanceTypes(),
            existingNodes: [
              existingNode({
                name: 'attached',
                labels: { [ZONE]: 'test-zone-1' },
                volumeLimits: { 'csi.test': 1 },
              }),
            ],
            minValuesPolicy: policy,
            podVolumes: (p) => volumes.get(p),
          };
          const options = schedulerOptions(env);
          const wasm = new Scheduler({ ...options, solver: 'wasm' }).solve(pods);
          const ts = new Scheduler({ ...options, solver: 'ts' }).solve(pods);
          expect(summary(ts)).toEqual(summary(wasm));
          validateAssignment(wasm, { ...options, pods });
          validateAssignment(ts, { ...options, pods });
        },
      ),
      { numRuns: 120, seed: 20261202 },
    );
  });
});
