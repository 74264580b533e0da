import { describe, expect, it } from 'vitest';
import {
  affinityTerm,
  daemonSet,
  existingNode,
  expectNewNodeClaim,
  expectNotScheduled,
  expectScheduled,
  instanceType,
  nodePool,
  pod,
  schedule,
  standardInstanceTypes,
  unschedulablePod,
  unschedulablePods,
  type TestEnvironment,
} from '../src/testing/index.js';

const IT = 'node.kubernetes.io/instance-type';
const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
  nodePools: [nodePool()],
  instanceTypes: standardInstanceTypes(),
  ...extra,
});
const names = (c: { instanceTypeOptions: readonly { name: string }[] }) =>
  c.instanceTypeOptions.map((it) => it.name);

describe('daemonset overhead', () => {
  it('reserves room for daemonsets on every new node', () => {
    // 1.5 cpu pod + 1 cpu daemon no longer fits the 2-cpu type.
    const p = unschedulablePod({ requests: { cpu: '1500m' } });
    const claim = expectNewNodeClaim(
      schedule(env({ daemonSetPods: [daemonSet({ requests: { cpu: '1' } })] }), [p]),
      p,
    );
    expect(names(claim)[0]).toBe('arm-medium');
    expect(claim.requests['cpu']).toBe(2500);
  });

  it('does not count a daemonset that does not tolerate the pool taint', () => {
    const pools = [nodePool({ taints: [{ key: 'dedicated', effect: 'NoSchedule' }] })];
    const p = unschedulablePod({
      requests: { cpu: '1500m' },
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
    });
    const claim = expectNewNodeClaim(
      schedule(env({ nodePools: pools, daemonSetPods: [daemonSet({ requests: { cpu: '1' } })] }), [
        p,
      ]),
      p,
    );
    expect(names(claim)[0]).toBe('small');
    expect(claim.requests['cpu']).toBe(1500);
  });

  it('counts a daemonset only on the instance types its node affinity selects', () => {
    const ds = daemonSet({
      requests: { cpu: '1' },
      nodeRequirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
    });
    const p = unschedulablePod({ requests: { cpu: '3500m' } });
    const claim = expectNewNodeClaim(schedule(env({ daemonSetPods: [ds] }), [p]), p);
    // arm-medium (4 cpu) cannot hold 3.5 + 1; medium (amd64) holds 3.5 with no daemon.
    expect(names(claim)).toEqual(['medium', 'large', 'gpu']);
    expect(claim.requests['cpu']).toBe(3500);
  });

  it('puts the smallest overhead among the kept options into the requests', () => {
    const ds = daemonSet({
      requests: { cpu: '500m' },
      nodeSelector: { 'node.kubernetes.io/instance-type': 'large' },
    });
    const p = unschedulablePod({ requests: { cpu: '3' } });
    const claim = expectNewNodeClaim(schedule(env({ daemonSetPods: [ds] }), [p]), p);
    expect(names(claim)).toEqual(['arm-medium', 'medium', 'large', 'gpu']);
    expect(claim.requests['cpu']).toBe(3000);
  });

  it('names the daemonset overhead, not the limits, when no instance type holds the daemonsets alone', () => {
    // 3 daemonsets of 4 cpu each: no standard type (at most 8 cpu) has room for them, so the
    // pool has no usable type. The reason was "all instance types exceed the nodepool's
    // remaining limits" for a pool without limits (found by the fuzz suite: more DaemonSets
    // than the NodeClass's maxPods).
    const daemons = [1, 2, 3].map(() => daemonSet({ requests: { cpu: '4' } }));
    const p = unschedulablePod({ requests: { cpu: '100m' } });
    expect(expectNotScheduled(schedule(env({ daemonSetPods: daemons }), [p]), p)).toMatch(
      /no instance type has room for the daemonset overhead alone \(3 daemonset pods\)/,
    );
  });

  it('subtracts daemonsets not yet running from an existing node', () => {
    const node = existingNode({ name: 'n1', allocatable: { cpu: '2', memory: '4Gi', pods: '10' } });
    const p = unschedulablePod({ requests: { cpu: '1500m' } });
    const r = schedule(
      env({ existingNodes: [node], daemonSetPods: [daemonSet({ requests: { cpu: '1' } })] }),
      [p],
    );
    expect(expectScheduled(r, p).kind).toBe('nodeclaim');
  });

  it('does not count a daemonset twice when its pod already runs on the existing node', () => {
    const ds = daemonSet({ requests: { cpu: '1' } });
    const runningDaemon = unschedulablePod({
      requests: { cpu: '1' },
      ownerKind: 'DaemonSet',
      phase: 'Running',
    });
    const node = existingNode({
      name: 'n1',
      allocatable: { cpu: '3', memory: '4Gi', pods: '10' },
      pods: [runningDaemon],
    });
    const p = unschedulablePod({ requests: { cpu: '1500m' } });
    expect(
      expectScheduled(schedule(env({ existingNodes: [node], daemonSetPods: [ds] }), [p]), p),
    ).toEqual({ kind: 'existing', name: 'n1' });
  });
});

describe('host ports', () => {
  it('puts pods using the same host port on different nodes', () => {
    const pods = unschedulablePods(2, { hostPorts: [{ port: 8080 }] });
    expect(schedule(env(), pods).newNodeClaims).toHaveLength(2);
  });

  it('shares a node between pods on different host ports', () => {
    const pods = [
      unschedulablePod({ hostPorts: [{ port: 8080 }] }),
      unschedulablePod({ hostPorts: [{ port: 8081 }] }),
    ];
    expect(schedule(env(), pods).newNodeClaims).toHaveLength(1);
  });

  it('shares a node between pods on the same port bound to different IPs', () => {
    const pods = [
      unschedulablePod({ hostPorts: [{ port: 53, hostIP: '10.0.0.1' }] }),
      unschedulablePod({ hostPorts: [{ port: 53, hostIP: '10.0.0.2' }] }),
    ];
    expect(schedule(env(), pods).newNodeClaims).toHaveLength(1);
  });

  it('treats 0.0.0.0 as conflicting with every IP', () => {
    const pods = [
      unschedulablePod({ hostPorts: [{ port: 53, hostIP: '10.0.0.1' }] }),
      unschedulablePod({ hostPorts: [{ port: 53 }] }),
    ];
    expect(schedule(env(), pods).newNodeClaims).toHaveLength(2);
  });

  it('cannot use a host port a daemonset on every node already uses', () => {
    const p = unschedulablePod({ hostPorts: [{ port: 9100 }] });
    const error = expectNotScheduled(
      schedule(env({ daemonSetPods: [daemonSet({ hostPorts: [{ port: 9100 }] })] }), [p]),
      p,
    );
    expect(error).toContain('host ports');
  });

  it('avoids an existing node whose pods hold the port', () => {
    const node = existingNode({
      name: 'n1',
      pods: [unschedulablePod({ hostPorts: [{ port: 80 }], phase: 'Running' })],
    });
    const p = unschedulablePod({ hostPorts: [{ port: 80 }] });
    expect(expectScheduled(schedule(env({ existingNodes: [node] }), [p]), p).kind).toBe(
      'nodeclaim',
    );
  });
});

describe('NodePool weights', () => {
  it('tries the heaviest NodePool first', () => {
    const pools = [nodePool({ name: 'light', weight: 1 }), nodePool({ name: 'heavy', weight: 90 })];
    const p = unschedulablePod();
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'heavy',
    );
  });

  it('breaks weight ties by name, descending', () => {
    const pools = [nodePool({ name: 'alpha' }), nodePool({ name: 'beta' })];
    const p = unschedulablePod();
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'beta',
    );
  });

  it('falls back to a lighter NodePool when the heavier cannot take the pod', () => {
    const pools = [
      nodePool({
        name: 'arm',
        weight: 50,
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
      }),
      nodePool({ name: 'any' }),
    ];
    const p = unschedulablePod({ requests: { cpu: '6' } });
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'any',
    );
  });

  it('prefers an in-flight node claim of a lighter pool over opening one in a heavier pool', () => {
    const pools = [
      nodePool({
        name: 'heavy',
        weight: 50,
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
      }),
      nodePool({ name: 'light' }),
    ];
    const big = unschedulablePod({ requests: { cpu: '6' } });
    const small = unschedulablePod({ requests: { cpu: '1' } });
    const r = schedule(env({ nodePools: pools }), [big, small]);
    expect(expectNewNodeClaim(r, small)).toBe(expectNewNodeClaim(r, big));
  });

  it('uses each NodePool’s own instance types', () => {
    const pools = [nodePool({ name: 'gpu', weight: 10 }), nodePool({ name: 'cpu' })];
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const r = schedule(
      env({
        nodePools: pools,
        instanceTypesByPool: { gpu: standardInstanceTypes().filter((it) => it.name === 'gpu') },
      }),
      [p],
    );
    const claim = expectNewNodeClaim(r, p);
    expect(claim.nodePoolName).toBe('gpu');
    expect(names(claim)).toEqual(['gpu']);
  });
});

describe('NodePool limits', () => {
  it('leaves out instance types larger than the remaining cpu limit', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const claim = expectNewNodeClaim(
      schedule(env({ nodePools: [nodePool({ limits: { cpu: '4' } })] }), [p]),
      p,
    );
    expect(names(claim)).toEqual(['small', 'arm-medium', 'medium']);
  });

  it('subtracts the largest option of each new node claim, pessimistically', () => {
    // Each 3-cpu pod needs a 4-cpu type; with a 10-cpu limit after the first claim (largest option
    // 8 cpu) only 2 cpu remain, which no type hosting the pod fits.
    const pods = unschedulablePods(2, {
      requests: { cpu: '3' },
      podAntiAffinity: [
        { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } },
      ],
      labels: { a: 'b' },
    });
    const r = schedule(env({ nodePools: [nodePool({ limits: { cpu: '10' } })] }), pods);
    expect(r.newNodeClaims).toHaveLength(1);
    expect(expectNotScheduled(r, pods[1]!)).toContain('limits');
  });

  it('stops opening node claims at the nodes limit', () => {
    const pods = unschedulablePods(3, { requests: { cpu: '7' } });
    const r = schedule(env({ nodePools: [nodePool({ limits: { nodes: '2' } })] }), pods);
    expect(r.newNodeClaims).toHaveLength(2);
    expect(expectNotScheduled(r, pods[2]!)).toContain('nodepool limit on nodes reached');
  });

  it('counts existing nodes of the pool against its limits', () => {
    const node = existingNode({
      name: 'n1',
      nodePoolName: 'default',
      allocatable: { cpu: '0', memory: '0', pods: '0' },
      capacity: { cpu: '6', memory: '8Gi' },
    });
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const claim = expectNewNodeClaim(
      schedule(env({ existingNodes: [node], nodePools: [nodePool({ limits: { cpu: '10' } })] }), [
        p,
      ]),
      p,
    );
    expect(names(claim)).toEqual(['small', 'arm-medium', 'medium']);
  });

  it('turns a pod away for a used-up pool before trying its topology, as upstream does', () => {
    // The pod's zonal affinity could only be met in test-zone-1, where the full node is, and the
    // pool only launches in test-zone-2; but the pool has no cpu left, and upstream filters the
    // pool's instance types by its remaining limits before it tries the pod at all.
    const web = pod({ name: 'web', labels: { app: 'web' } });
    const node = existingNode({
      name: 'full',
      allocatable: { cpu: '0', memory: '0', pods: '0' },
      pods: [web],
    });
    const pool = nodePool({
      limits: { cpu: '0' },
      requirements: [
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test-zone-2'] },
      ],
    });
    const p = unschedulablePod({
      podAffinity: [affinityTerm('topology.kubernetes.io/zone', { app: 'web' })],
    });
    const r = schedule(env({ existingNodes: [node], nodePools: [pool] }), [p]);
    expect(expectNotScheduled(r, p)).toBe(
      `incompatible with nodepool "default", all instance types exceed the nodepool's remaining limits`,
    );
  });

  it('names the limits of a used-up pool before a taint the pod does not tolerate, as upstream does', () => {
    const pool = nodePool({
      limits: { cpu: '0' },
      taints: [{ key: 'dedicated', effect: 'NoSchedule' }],
    });
    const p = unschedulablePod();
    expect(expectNotScheduled(schedule(env({ nodePools: [pool] }), [p]), p)).toBe(
      `incompatible with nodepool "default", all instance types exceed the nodepool's remaining limits`,
    );
  });

  it('overflows into the next pool when the first is at its limit', () => {
    const pools = [
      nodePool({ name: 'capped', weight: 10, limits: { cpu: '0' } }),
      nodePool({ name: 'open' }),
    ];
    const p = unschedulablePod();
    expect(expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p).nodePoolName).toBe(
      'open',
    );
  });
});

describe('minValues', () => {
  const flexible = (minValues: number) =>
    nodePool({ requirements: [{ key: IT, operator: 'Exists', minValues }] });

  it('keeps enough instance types to satisfy minValues', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const claim = expectNewNodeClaim(schedule(env({ nodePools: [flexible(3)] }), [p]), p);
    expect(claim.instanceTypeOptions.length).toBeGreaterThanOrEqual(3);
    expect(claim.minValuesRelaxed).toBe(false);
  });

  it('fails a pod that leaves fewer instance types than minValues under Strict', () => {
    const p = unschedulablePod({ requests: { cpu: '6' } });
    const error = expectNotScheduled(schedule(env({ nodePools: [flexible(3)] }), [p]), p);
    expect(error).toContain('minValues for node.kubernetes.io/instance-type needs 3');
  });

  it('schedules it anyway and marks the claim relaxed under BestEffort', () => {
    const p = unschedulablePod({ requests: { cpu: '6' } });
    const claim = expectNewNodeClaim(
      schedule(env({ nodePools: [flexible(3)], minValuesPolicy: 'BestEffort' }), [p]),
      p,
    );
    expect(claim.minValuesRelaxed).toBe(true);
    expect(names(claim)).toEqual(['large', 'gpu']);
  });

  it('opens a new node claim rather than shrink one below minValues', () => {
    const pods = unschedulablePods(2, { requests: { cpu: '3' } });
    const r = schedule(env({ nodePools: [flexible(3)] }), pods);
    expect(r.newNodeClaims).toHaveLength(2);
  });

  it('keeps minValues when truncating to maxInstanceTypes, failing under Strict', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const error = expectNotScheduled(
      schedule(env({ nodePools: [flexible(3)], maxInstanceTypes: 2 }), [p]),
      p,
    );
    expect(error).toContain('after keeping the 2 cheapest instance types');
  });

  it('counts distinct values of other keys too', () => {
    const pools = [
      nodePool({ requirements: [{ key: 'kubernetes.io/arch', operator: 'Exists', minValues: 2 }] }),
    ];
    const p = unschedulablePod({ requests: { cpu: '3' } });
    const claim = expectNewNodeClaim(schedule(env({ nodePools: pools }), [p]), p);
    expect(names(claim)).toContain('arm-medium');
  });
});

describe('instance-type availability', () => {
  it('skips instance types whose offerings are all unavailable', () => {
    const its = [
      instanceType({
        name: 'gone',
        price: 0.01,
        offerings: [{ zone: 'test-zone-1', capacityType: 'spot', price: 0.01, available: false }],
      }),
      instanceType({ name: 'here', price: 1 }),
    ];
    const p = unschedulablePod();
    expect(names(expectNewNodeClaim(schedule(env({ instanceTypes: its }), [p]), p))).toEqual([
      'here',
    ]);
  });

  it('prices an instance type by its cheapest offering compatible with the claim', () => {
    const its = [
      instanceType({
        name: 'cheap-spot',
        offerings: [
          { zone: 'test-zone-1', capacityType: 'spot', price: 0.1 },
          { zone: 'test-zone-1', capacityType: 'on-demand', price: 0.9 },
        ],
      }),
      instanceType({
        name: 'mid',
        offerings: [{ zone: 'test-zone-1', capacityType: 'on-demand', price: 0.5 }],
      }),
    ];
    const p = unschedulablePod({ nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } });
    expect(names(expectNewNodeClaim(schedule(env({ instanceTypes: its }), [p]), p))).toEqual([
      'mid',
      'cheap-spot',
    ]);
  });
});
