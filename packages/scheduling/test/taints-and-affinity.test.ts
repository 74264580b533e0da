import { describe, expect, it } from 'vitest';
import {
  expectNewNodeClaim,
  instanceType,
  expectNotScheduled,
  nodePool,
  schedule,
  standardInstanceTypes,
  unschedulablePod,
  type TestEnvironment,
} from '../src/testing/index.js';

const ZONE = 'topology.kubernetes.io/zone';
const ARCH = 'kubernetes.io/arch';
const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
  nodePools: [nodePool()],
  instanceTypes: standardInstanceTypes(),
  ...extra,
});
const gpuTaint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };

describe('taints and tolerations', () => {
  it('does not schedule a pod onto a pool whose taint it does not tolerate', () => {
    const p = unschedulablePod();
    const error = expectNotScheduled(
      schedule(env({ nodePools: [nodePool({ taints: [gpuTaint] })] }), [p]),
      p,
    );
    expect(error).toContain('did not tolerate taint nvidia.com/gpu=true:NoSchedule');
  });

  it('schedules a pod that tolerates the taint onto the tainted pool', () => {
    const p = unschedulablePod({ tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }] });
    const claim = expectNewNodeClaim(
      schedule(env({ nodePools: [nodePool({ taints: [gpuTaint] })] }), [p]),
      p,
    );
    expect(claim.nodePoolName).toBe('default');
  });

  it('sends an intolerant pod to the untainted pool even when the tainted pool weighs more', () => {
    const pools = [
      nodePool({ name: 'gpu', weight: 50, taints: [gpuTaint] }),
      nodePool({ name: 'general' }),
    ];
    const p = unschedulablePod();
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'general',
    );
  });

  it('requires an Equal toleration to match the taint value', () => {
    const p = unschedulablePod({
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'false' }],
    });
    expectNotScheduled(schedule(env({ nodePools: [nodePool({ taints: [gpuTaint] })] }), [p]), p);
  });

  it('tolerates every taint with an empty-key Exists toleration', () => {
    const p = unschedulablePod({ tolerations: [{ operator: 'Exists' }] });
    expectNewNodeClaim(schedule(env({ nodePools: [nodePool({ taints: [gpuTaint] })] }), [p]), p);
  });

  it('treats PreferNoSchedule as a taint until the last relaxation step tolerates it', () => {
    const pools = [
      nodePool({
        name: 'preferred-not',
        weight: 10,
        taints: [{ key: 'spot', effect: 'PreferNoSchedule' }],
      }),
    ];
    const p = unschedulablePod();
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'preferred-not',
    );
  });

  it('prefers a pool without the PreferNoSchedule taint when one exists', () => {
    const pools = [
      nodePool({
        name: 'soft-tainted',
        weight: 10,
        taints: [{ key: 'spot', effect: 'PreferNoSchedule' }],
      }),
      nodePool({ name: 'clean' }),
    ];
    const p = unschedulablePod();
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'clean',
    );
  });

  it('ignores startup taints when provisioning', () => {
    const pools = [nodePool({ startupTaints: [{ key: 'cni-not-ready', effect: 'NoSchedule' }] })];
    const p = unschedulablePod();
    expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p);
  });
});

describe('node selector and node affinity', () => {
  it('narrows the node claim to the zone a node selector asks for', () => {
    const p = unschedulablePod({ nodeSelector: { [ZONE]: 'test-zone-2' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requirements.get(ZONE).valuesList()).toEqual(['test-zone-2']);
  });

  it('keeps only arm64 instance types for an arm64 pod', () => {
    const p = unschedulablePod({
      nodeRequirements: [{ key: ARCH, operator: 'In', values: ['arm64'] }],
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.instanceTypeOptions.map((it) => it.name)).toEqual(['arm-medium']);
  });

  it('excludes instance types with NotIn', () => {
    const p = unschedulablePod({
      nodeRequirements: [
        {
          key: 'node.kubernetes.io/instance-type',
          operator: 'NotIn',
          values: ['small', 'arm-medium'],
        },
      ],
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.instanceTypeOptions.map((it) => it.name)).toEqual(['medium', 'large', 'gpu']);
  });

  it('fails a pod requiring a zone no instance type offers', () => {
    const p = unschedulablePod({ nodeSelector: { [ZONE]: 'test-zone-9' } });
    expect(expectNotScheduled(schedule(env(), [p]), p)).toContain(
      'no instance type met the requirements',
    );
  });

  it('fails a pod requiring a custom label no pool defines', () => {
    const p = unschedulablePod({ nodeSelector: { team: 'a' } });
    expect(expectNotScheduled(schedule(env(), [p]), p)).toContain(
      'label "team" does not have known values',
    );
  });

  it('schedules a custom label a pool template defines', () => {
    const p = unschedulablePod({ nodeSelector: { team: 'a' } });
    const pools = [
      nodePool({ name: 'b', weight: 5, labels: { team: 'b' } }),
      nodePool({ name: 'a', labels: { team: 'a' } }),
    ];
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe('a');
  });

  it('lets a pod require a label not to exist on a pool that does not define it', () => {
    const p = unschedulablePod({ nodeRequirements: [{ key: 'team', operator: 'DoesNotExist' }] });
    expectNewNodeClaim(schedule(env(), [p]), p);
  });

  it('meets a pool requirement with an In list by picking a value the pod allows', () => {
    const pools = [
      nodePool({
        requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-3'] }],
      }),
    ];
    const p = unschedulablePod({
      nodeRequirements: [{ key: ZONE, operator: 'NotIn', values: ['test-zone-1'] }],
    });
    const claim = expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p);
    expect(claim.requirements.get(ZONE).valuesList()).toEqual(['test-zone-3']);
  });

  it('filters instance types with Gt on an integer label', () => {
    const its = [2, 4, 8].map((cpu) =>
      instanceType({
        name: `c${cpu}`,
        cpu: String(cpu),
        memory: '16Gi',
        labels: { 'example.com/cpu': String(cpu) },
      }),
    );
    const pools = [nodePool({ requirements: [{ key: 'example.com/cpu', operator: 'Exists' }] })];
    const p = unschedulablePod({
      nodeRequirements: [{ key: 'example.com/cpu', operator: 'Gt', values: ['3'] }],
    });
    const claim = expectNewNodeClaim(
      schedule(env({ nodePools: pools, instanceTypes: its }), [p]),
      p,
    );
    expect(claim.instanceTypeOptions.map((it) => it.name)).toEqual(['c4', 'c8']);
  });

  it('tries the next required node-affinity term when the first cannot be met', () => {
    const p = unschedulablePod({
      nodeRequirementTerms: [
        [{ key: ZONE, operator: 'In', values: ['test-zone-9'] }],
        [{ key: ZONE, operator: 'In', values: ['test-zone-3'] }],
      ],
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requirements.get(ZONE).valuesList()).toEqual(['test-zone-3']);
  });

  it('honors a preferred node-affinity term when it can', () => {
    const p = unschedulablePod({
      nodePreferences: [
        { weight: 10, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-2'] }] },
      ],
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requirements.get(ZONE).valuesList()).toEqual(['test-zone-2']);
  });

  it('drops a preferred node-affinity term that cannot be met', () => {
    const p = unschedulablePod({
      nodePreferences: [
        { weight: 10, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-9'] }] },
      ],
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(
      claim.requirements.get(ZONE).complement || claim.requirements.get(ZONE).values.size > 1,
    ).toBe(true);
  });

  it('honors the heaviest preferred term first and falls back to the next', () => {
    const p = unschedulablePod({
      nodePreferences: [
        { weight: 1, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }] },
        { weight: 50, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-9'] }] },
      ],
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requirements.get(ZONE).valuesList()).toEqual(['test-zone-1']);
  });

  it('ignores preferred node affinity under the Ignore policy', () => {
    const p = unschedulablePod({
      nodePreferences: [
        { weight: 10, matchExpressions: [{ key: ZONE, operator: 'In', values: ['test-zone-2'] }] },
      ],
    });
    const claim = expectNewNodeClaim(schedule(env({ preferencePolicy: 'Ignore' }), [p]), p);
    expect(claim.requirements.get(ZONE).valuesList()).not.toEqual(['test-zone-2']);
  });
});
