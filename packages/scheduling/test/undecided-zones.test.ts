/**
 * Required topology toward pods on an in-flight node claim whose zone is not decided yet: such
 * a claim may still launch in any zone its requirements allow, so a required rule has to hold
 * for every one of them (upstream: an undecided domain blocks all its possible
 * domains on record). Like upstream, the scheduler leaves the other pod pending rather than pin
 * the claim to a zone; the next batch sees the launched node's zone.
 */
import { describe, expect, it } from 'vitest';
import {
  affinityTerm,
  existingNode,
  expectNewNodeClaim,
  expectNotScheduled,
  nodePool,
  pod,
  schedule,
  standardInstanceTypes,
  unschedulablePod,
  type TestEnvironment,
} from '../src/testing/index.js';

const ZONE = 'topology.kubernetes.io/zone';
const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
  nodePools: [nodePool()],
  instanceTypes: standardInstanceTypes(),
  ...extra,
});
const zoneOf = (c: { requirements: { get(k: string): { valuesList(): readonly string[] } } }) =>
  c.requirements.get(ZONE).valuesList();

describe.each(['wasm', 'ts'] as const)(
  'required zonal topology toward pods on a claim whose zone is undecided (%s solver)',
  (solver) => {
    it('keeps a pod anti-affine to another group out of every zone that group’s claim may launch in', () => {
      const a = unschedulablePod({ labels: { app: 'a' }, requests: { cpu: '2' } });
      const b = unschedulablePod({
        requests: { cpu: '1' },
        podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })],
      });
      const r = schedule(env({ solver }), [a, b]);
      // a's claim leaves its zone open, so it may launch in any of the three zones.
      expect(expectNewNodeClaim(r, a).pods).toEqual([a]);
      expect(r.newNodeClaims).toHaveLength(1);
      expect(expectNotScheduled(r, b)).toContain(
        'pod anti-affinity on topology.kubernetes.io/zone (selector {app=a})',
      );
    });

    it('places that pod in another zone once the claim has launched with a zone (the next batch)', () => {
      const a = pod({ labels: { app: 'a' }, phase: 'Running', requests: { cpu: '2' } });
      const launched = existingNode({
        name: 'launched',
        labels: { [ZONE]: 'test-zone-2' },
        pods: [a],
      });
      const b = unschedulablePod({
        requests: { cpu: '1' },
        podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })],
      });
      const r = schedule(env({ solver, existingNodes: [launched] }), [b]);
      expect(zoneOf(expectNewNodeClaim(r, b))).toEqual(['test-zone-1', 'test-zone-3']);
    });

    it('relaxes a preferred anti-affinity toward a pod on an undecided claim', () => {
      const a = unschedulablePod({ labels: { app: 'a' }, requests: { cpu: '2' } });
      const b = unschedulablePod({
        requests: { cpu: '1' },
        preferredPodAntiAffinity: [
          { weight: 10, podAffinityTerm: affinityTerm(ZONE, { app: 'a' }) },
        ],
      });
      const r = schedule(env({ solver }), [a, b]);
      expect(expectNewNodeClaim(r, b)).toBe(expectNewNodeClaim(r, a));
    });

    it('keeps the later pod out when the anti-affine pod is scheduled first', () => {
      const b = unschedulablePod({
        requests: { cpu: '2' },
        podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })],
      });
      const a = unschedulablePod({ labels: { app: 'a' }, requests: { cpu: '1' } });
      const r = schedule(env({ solver }), [b, a]);
      expect(expectNewNodeClaim(r, b).pods).toEqual([b]);
      expect(expectNotScheduled(r, a)).toContain(
        'anti-affinity of already scheduled pods on topology.kubernetes.io/zone',
      );
    });

    it('keeps a later pod out of every zone open to an anti-affine pod’s claim (inverse direction)', () => {
      const a = unschedulablePod({
        labels: { app: 'a' },
        requests: { cpu: '2' },
        podAntiAffinity: [affinityTerm(ZONE, { app: 'b' })],
      });
      const b = unschedulablePod({ labels: { app: 'b' }, requests: { cpu: '1' } });
      const r = schedule(env({ solver }), [a, b]);
      expect(expectNewNodeClaim(r, a).pods).toEqual([a]);
      expect(expectNotScheduled(r, b)).toContain(
        'anti-affinity of already scheduled pods on topology.kubernetes.io/zone',
      );
    });

    it('blocks only the zones the claim’s requirements still allow', () => {
      const a = unschedulablePod({
        labels: { app: 'a' },
        requests: { cpu: '2' },
        nodeRequirements: [{ key: ZONE, operator: 'NotIn', values: ['test-zone-3'] }],
      });
      const b = unschedulablePod({
        requests: { cpu: '1' },
        podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })],
      });
      const r = schedule(env({ solver }), [a, b]);
      expect(expectNewNodeClaim(r, b)).not.toBe(expectNewNodeClaim(r, a));
      expect(zoneOf(expectNewNodeClaim(r, b))).toEqual(['test-zone-3']);
    });

    it('blocks an existing node in any zone the claim may launch in', () => {
      const node = existingNode({ name: 'zone-1-node', labels: { [ZONE]: 'test-zone-1' } });
      const a = unschedulablePod({
        labels: { app: 'a' },
        requests: { cpu: '2' },
        nodeSelector: { 'karpenter.sh/nodepool': 'default' },
      });
      const b = unschedulablePod({
        requests: { cpu: '1' },
        podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })],
      });
      const r = schedule(env({ solver, existingNodes: [node] }), [a, b]);
      expect(expectNewNodeClaim(r, a).pods).toEqual([a]);
      expect(expectNotScheduled(r, b)).toContain(
        'pod anti-affinity on topology.kubernetes.io/zone',
      );
    });

    it('counts no zone for a running pod on a node without a zone label', () => {
      const running = pod({ labels: { app: 'a' }, phase: 'Running' });
      const full = existingNode({
        name: 'no-zone',
        allocatable: { cpu: '0', memory: '0', pods: '0' },
        pods: [running],
      });
      const { [ZONE]: _zone, ...labels } = full.labels;
      const b = unschedulablePod({ podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })] });
      const r = schedule(env({ solver, existingNodes: [{ ...full, labels }] }), [b]);
      expectNewNodeClaim(r, b);
    });

    it('does not satisfy a required zonal affinity with a pod whose claim’s zone is undecided', () => {
      const a = unschedulablePod({ labels: { app: 'a' }, requests: { cpu: '5' } });
      // 9 cpu together: b cannot share a's node, and no other node is sure to be in a's zone.
      const b = unschedulablePod({
        requests: { cpu: '4' },
        podAffinity: [affinityTerm(ZONE, { app: 'a' })],
      });
      const r = schedule(env({ solver }), [a, b]);
      expect(expectNewNodeClaim(r, a).pods).toEqual([a]);
      expect(expectNotScheduled(r, b)).toContain('pod affinity on topology.kubernetes.io/zone');
    });
  },
);
