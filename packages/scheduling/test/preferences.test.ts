import { describe, expect, it } from 'vitest';
import { podConstraints, relax } from '../src/index.js';
import {
  affinityTerm,
  expectNewNodeClaim,
  nodePool,
  pod,
  schedule,
  spread,
  standardInstanceTypes,
  unschedulablePods,
} from '../src/testing/index.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

describe('preference relaxation', () => {
  const everything = pod({
    labels: { app: 'web' },
    nodeRequirementTerms: [
      [{ key: ZONE, operator: 'In', values: ['a'] }],
      [{ key: ZONE, operator: 'In', values: ['b'] }],
    ],
    nodePreferences: [
      { weight: 1, matchExpressions: [{ key: 'x', operator: 'Exists' }] },
      { weight: 5, matchExpressions: [{ key: 'y', operator: 'Exists' }] },
    ],
    preferredPodAffinity: [
      { weight: 1, podAffinityTerm: affinityTerm(ZONE, { a: '1' }) },
      { weight: 9, podAffinityTerm: affinityTerm(ZONE, { a: '9' }) },
    ],
    preferredPodAntiAffinity: [{ weight: 3, podAffinityTerm: affinityTerm(HOST, { b: '3' }) }],
    topologySpreadConstraints: [
      spread(ZONE, { app: 'web' }, { whenUnsatisfiable: 'ScheduleAnyway' }),
    ],
  });

  it('relaxes in upstream order, one step at a time, heaviest preference first', () => {
    const steps: string[] = [];
    let c = podConstraints(everything, 'Respect');
    expect(c.preferredNodeTerms[0]!.weight).toBe(5);
    for (let next = relax(c, true); next !== undefined; next = relax(c, true)) {
      steps.push(next.step);
      c = next.constraints;
      if (next.step === 'preferred pod affinity term' && c.preferredAffinity.length === 1) {
        expect(c.preferredAffinity[0]!.weight).toBe(1);
      }
    }
    expect(steps).toEqual([
      'required node affinity term',
      'preferred pod affinity term',
      'preferred pod affinity term',
      'preferred pod anti-affinity term',
      'preferred node affinity term',
      'preferred node affinity term',
      'ScheduleAnyway topology spread constraint',
      'PreferNoSchedule taints',
    ]);
    expect(c.requiredNodeTerms).toHaveLength(1);
  });

  it('skips the PreferNoSchedule step when no pool has such a taint', () => {
    let c = podConstraints(everything, 'Respect');
    let last = '';
    for (let next = relax(c, false); next !== undefined; next = relax(c, false)) {
      last = next.step;
      c = next.constraints;
    }
    expect(last).toBe('ScheduleAnyway topology spread constraint');
  });

  it('drops every preference up front under the Ignore policy', () => {
    const c = podConstraints(everything, 'Ignore');
    expect(c.preferredNodeTerms).toHaveLength(0);
    expect(c.preferredAffinity).toHaveLength(0);
    expect(c.preferredAntiAffinity).toHaveLength(0);
    expect(c.topologySpread).toHaveLength(0);
    expect(c.requiredNodeTerms).toHaveLength(2);
  });

  it('gives every pod its own node when only the hostname preference survives (upstream preference benchmark)', () => {
    const pods = unschedulablePods(6, {
      labels: { app: 'nginx' },
      requests: { cpu: '100m' },
      nodePreferences: [
        { weight: 1, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }] },
      ],
      preferredPodAntiAffinity: [
        { weight: 10, podAffinityTerm: affinityTerm(ZONE, { app: 'nginx' }) },
        { weight: 1, podAffinityTerm: affinityTerm(HOST, { app: 'nginx' }) },
      ],
    });
    const env = { nodePools: [nodePool()], instanceTypes: standardInstanceTypes() };
    const respected = schedule(env, pods);
    expect(respected.newNodeClaims).toHaveLength(6);
    for (const p of pods) {
      expect(expectNewNodeClaim(respected, p).requirements.get(ZONE).valuesList()).toEqual([
        'test-zone-1',
      ]);
    }
    const ignored = schedule({ ...env, preferencePolicy: 'Ignore' }, pods);
    expect(ignored.newNodeClaims).toHaveLength(1);
  });
});
