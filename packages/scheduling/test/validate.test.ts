/**
 * `validateAssignment` judges required topology on every zone a node claim may still launch in:
 * the zones its requirements allow that an instance-type option offers.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '@karpenter-ts/api';
import { Scheduler, type NewNodeClaim, type SchedulingResults } from '../src/index.js';
import {
  affinityTerm,
  instanceType,
  nodePool,
  schedulerOptions,
  unschedulablePod,
  validateAssignment,
  type TestEnvironment,
  type TestInstanceType,
} from '../src/testing/index.js';

const ZONE = 'topology.kubernetes.io/zone';
const anywhere = instanceType({ name: 'anywhere', cpu: '4', price: 0.2 });
const zone3Only = instanceType({
  name: 'zone-3-only',
  cpu: '4',
  price: 0.1,
  offerings: [{ zone: 'test-zone-3', capacityType: 'on-demand', price: 0.1 }],
});

/** One claim per pod, each solved alone with `types` (a's claim leaves its zone open). */
function claimsFor(entries: [Pod, TestInstanceType[]][]): {
  results: SchedulingResults;
  env: TestEnvironment;
} {
  const env: TestEnvironment = { nodePools: [nodePool()], instanceTypes: [anywhere, zone3Only] };
  const claims = entries.map(
    ([p, types]) =>
      new Scheduler(schedulerOptions({ ...env, instanceTypes: types })).solve([p])
        .newNodeClaims[0] as NewNodeClaim,
  );
  return { results: { newNodeClaims: claims, existingNodes: [], podErrors: new Map() }, env };
}

const a = unschedulablePod({ name: 'a', labels: { app: 'a' }, requests: { cpu: '1' } });
const b = unschedulablePod({
  name: 'b',
  requests: { cpu: '1' },
  podAntiAffinity: [affinityTerm(ZONE, { app: 'a' })],
});

describe('validateAssignment on claims whose zone is open', () => {
  it('rejects anti-affine pods on one such claim', () => {
    const { results, env } = claimsFor([[a, [anywhere]]]);
    const claim = results.newNodeClaims[0] as NewNodeClaim;
    expect(claim.requirements.get(ZONE).complement).toBe(true);
    const shared = { ...results, newNodeClaims: [{ ...claim, pods: [a, b] }] };
    expect(() => validateAssignment(shared, { ...schedulerOptions(env), pods: [a, b] })).toThrow(
      /share a topology.kubernetes.io\/zone domain against required anti-affinity/,
    );
  });

  it('rejects anti-affine pods on two such claims that may launch in the same zone', () => {
    const { results, env } = claimsFor([
      [a, [anywhere]],
      [b, [zone3Only]],
    ]);
    expect(() => validateAssignment(results, { ...schedulerOptions(env), pods: [a, b] })).toThrow(
      /pod default\/b .* and pod default\/a .* share a topology.kubernetes.io\/zone domain/,
    );
  });

  it('accepts them when the claims’ options offer disjoint zones', () => {
    const elsewhere = instanceType({
      name: 'elsewhere',
      cpu: '4',
      offerings: [{ zone: 'test-zone-1', capacityType: 'spot', price: 0.1 }],
    });
    const { results } = claimsFor([
      [a, [elsewhere]],
      [b, [zone3Only]],
    ]);
    const env: TestEnvironment = { nodePools: [nodePool()], instanceTypes: [elsewhere, zone3Only] };
    expect(() =>
      validateAssignment(results, { ...schedulerOptions(env), pods: [a, b] }),
    ).not.toThrow();
  });
});
