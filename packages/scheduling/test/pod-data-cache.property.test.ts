import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { PodDataCache, Requirements, Scheduler, type PodVolumes } from '../src/index.js';
import {
  affinityTerm,
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
  cpu: fc.constantFrom('250m', '1', '1500m'),
  label: fc.constantFrom('a', 'b'),
  kind: fc.constantFrom(
    'plain',
    'zone-spread',
    'zone-spread-anyway',
    'host-anti',
    'preferred-zone',
    'preferred-anti',
    'tolerant',
    'port',
  ),
});

function build(shape: { cpu: string; label: string; kind: string }, i: number): Pod {
  const labels = { app: shape.label };
  const base = { name: `p-${i}`, uid: `uid-${i}`, labels, requests: { cpu: shape.cpu } };
  switch (shape.kind) {
    case 'zone-spread':
      return pod({ ...base, topologySpreadConstraints: [spread(ZONE, labels)] });
    case 'zone-spread-anyway':
      return pod({
        ...base,
        topologySpreadConstraints: [spread(ZONE, labels, { whenUnsatisfiable: 'ScheduleAnyway' })],
      });
    case 'host-anti':
      return pod({ ...base, podAntiAffinity: [affinityTerm(HOST, labels)] });
    case 'preferred-zone':
      return pod({
        ...base,
        nodePreferences: [
          { weight: 1, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-2'] }] },
        ],
      });
    case 'preferred-anti':
      return pod({
        ...base,
        preferredPodAntiAffinity: [{ weight: 1, podAffinityTerm: affinityTerm(ZONE, labels) }],
      });
    case 'tolerant':
      return pod({ ...base, tolerations: [{ key: 'dedicated', operator: 'Exists' }] });
    case 'port':
      return pod({ ...base, hostPorts: [{ port: 8080 }] });
    default:
      return pod(base);
  }
}

/** One pass's cluster: what a provisioner's next Scheduler would be built over. */
const passShape = fc.record({
  // PreferNoSchedule changes the relaxation steps; a limit and the pool set change the catalog.
  preferNoSchedule: fc.boolean(),
  dedicated: fc.boolean(),
  cpuLimit: fc.constantFrom(undefined, '4', '12'),
  nodes: fc.array(fc.constantFrom('test-zone-1', 'test-zone-2', 'test-zone-3'), { maxLength: 3 }),
  // Pods (by index) whose volumes pin them to test-zone-3 in this pass.
  pinned: fc.array(fc.nat(11), { maxLength: 3 }),
});

describe('PodDataCache', () => {
  it('decides as Schedulers without it, pass after pass over the same pods', () => {
    fc.assert(
      fc.property(
        fc.array(podShape, { minLength: 1, maxLength: 12 }),
        fc.array(passShape, { minLength: 2, maxLength: 4 }),
        fc.constantFrom<'Respect' | 'Ignore'>('Respect', 'Ignore'),
        (podShapes, passes, preferencePolicy) => {
          const pods = podShapes.map(build);
          const cache = new PodDataCache({ preferencePolicy });
          passes.forEach((pass, p) => {
            const pinned = new Set(pass.pinned.map((i) => pods[i]).filter((x) => x !== undefined));
            const zone3: PodVolumes = {
              requirements: [Requirements.fromLabels({ [ZONE]: 'test-zone-3' })],
              attachments: [],
            };
            const env: TestEnvironment = {
              nodePools: [
                ...(pass.dedicated
                  ? [
                      nodePool({
                        name: 'dedicated',
                        weight: 10,
                        taints: [{ key: 'dedicated', effect: 'NoSchedule' }],
                      }),
                    ]
                  : []),
                nodePool({
                  name: 'general',
                  ...(pass.preferNoSchedule
                    ? { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] }
                    : {}),
                  ...(pass.cpuLimit ? { limits: { cpu: pass.cpuLimit } } : {}),
                }),
              ],
              instanceTypes: standardInstanceTypes(),
              existingNodes: pass.nodes.map((zone, i) =>
                existingNode({ name: `node-${p}-${i}`, labels: { [ZONE]: zone } }),
              ),
              preferencePolicy,
              podVolumes: (x) => (pinned.has(x) ? zone3 : undefined),
            };
            const options = schedulerOptions(env);
            const shared = new Scheduler({ ...options, podDataCache: cache });
            const fresh = new Scheduler(options);
            expect(resultsSummary(shared.solve(pods))).toEqual(resultsSummary(fresh.solve(pods)));
          });
        },
      ),
      { numRuns: 150, seed: 20261207 },
    );
  });

  it('keeps a pod’s data for the next Scheduler, and gives a pod whose volumes matter its own', () => {
    const env: TestEnvironment = {
      nodePools: [nodePool({ name: 'general' })],
      instanceTypes: standardInstanceTypes(),
    };
    const plain = pod({ name: 'plain', requests: { cpu: '1' } });
    const pinned = pod({ name: 'pinned', requests: { cpu: '1' } });
    const volumes: PodVolumes = {
      requirements: [Requirements.fromLabels({ [ZONE]: 'test-zone-1' })],
      attachments: [],
    };
    const cache = new PodDataCache();
    const options = {
      ...schedulerOptions(env),
      podDataCache: cache,
      podVolumes: (x: Pod) => (x === pinned ? volumes : undefined),
    };
    new Scheduler(options).solve([plain, pinned]);
    const first = cache.get(plain);
    expect(first).toBeDefined();
    expect(cache.get(pinned)).toBeUndefined();
    new Scheduler(options).solve([plain, pinned]);
    expect(cache.get(plain)).toBe(first);
  });

  it('is refused by a Scheduler of another preference policy or other namespace labels', () => {
    const options = schedulerOptions({
      nodePools: [nodePool({ name: 'general' })],
      instanceTypes: standardInstanceTypes(),
      preferencePolicy: 'Ignore',
    });
    expect(() => new Scheduler({ ...options, podDataCache: new PodDataCache() })).toThrow(
      /podDataCache was built for preferencePolicy Respect, the scheduler has Ignore/,
    );
    const cache = new PodDataCache({ preferencePolicy: 'Ignore' });
    expect(
      () => new Scheduler({ ...options, podDataCache: cache, namespaceLabels: new Map() }),
    ).toThrow(/namespaceLabels must be the podDataCache/);
  });
});
