import fc from 'fast-check';
import { createSolver } from '@karpenter-ts/solver';
import { describe, expect, it } from 'vitest';
import { buildPodData } from '../src/pod-data.js';
import { queueOrder } from '../src/queue.js';
import { pod } from '../src/testing/index.js';

const CPUS = ['100m', '250m', '1'];
const MEMORIES = ['100Mi', '1Gi'];
const TIMES = [undefined, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:01Z')];

const podArb = fc.record({
  cpu: fc.constantFrom(...CPUS),
  memory: fc.constantFrom(...MEMORIES),
  created: fc.constantFrom(...TIMES),
  // short alphabets make shared prefixes and equal uids common; é and ł test the lane limits
  uid: fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'b', '\u0000', 'é'), maxLength: 14 }),
    fc.string({ unit: fc.constantFrom('a', 'ł'), maxLength: 3 }),
    fc.uuid(),
  ),
});

describe('queue order through the solver', () => {
  it('sorts keys in the solver exactly as the comparison sort orders pods', () => {
    const solvers = [createSolver('wasm'), createSolver('ts')];
    fc.assert(
      fc.property(fc.array(podArb, { maxLength: 60 }), (specs) => {
        const pods = specs.map((s) =>
          buildPodData(
            pod({
              uid: s.uid,
              requests: { cpu: s.cpu, memory: s.memory },
              ...(s.created === undefined ? {} : { creationTimestamp: s.created }),
            }),
            'Respect',
          ),
        );
        const want = queueOrder(pods).map((d) => pods.indexOf(d));
        for (const solver of solvers) {
          const got = queueOrder(pods, (k, w, o) => solver.orderRows(k, w, o));
          expect(got.map((d) => pods.indexOf(d))).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('orders by cpu, then memory (both descending), then creation time, then uid', () => {
    const data = [
      pod({ uid: 'b', requests: { cpu: '1', memory: '1Gi' } }),
      pod({ uid: 'a', requests: { cpu: '1', memory: '1Gi' } }),
      pod({ uid: 'c', requests: { cpu: '2', memory: '1Gi' } }),
      pod({ uid: 'd', requests: { cpu: '1', memory: '2Gi' } }),
    ].map((p) => buildPodData(p, 'Respect'));
    const solver = createSolver('wasm');
    const order = queueOrder(data, (k, w, o) => solver.orderRows(k, w, o)).map((d) => d.uid);
    expect(order).toEqual(['c', 'd', 'a', 'b']);
  });
});
