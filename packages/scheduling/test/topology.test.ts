import { describe, expect, it } from 'vitest';
import {
  affinityTerm,
  existingNode,
  expectNewNodeClaim,
  expectNotScheduled,
  expectScheduled,
  expectSkew,
  nodePool,
  pod,
  schedule,
  spread,
  standardInstanceTypes,
  unschedulablePod,
  unschedulablePods,
  type TestEnvironment,
} from '../src/testing/index.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const CAPACITY = 'karpenter.sh/capacity-type';
const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
  nodePools: [nodePool()],
  instanceTypes: standardInstanceTypes(),
  ...extra,
});
const app = { app: 'web' };
const zoneOf = (c: { requirements: { get(k: string): { valuesList(): readonly string[] } } }) =>
  c.requirements.get(ZONE).valuesList();

describe('topology spread', () => {
  it('spreads pods evenly across zones', () => {
    const pods = unschedulablePods(6, {
      labels: app,
      topologySpreadConstraints: [spread(ZONE, app)],
    });
    const r = schedule(env(), pods);
    expect(expectSkew(r, ZONE, { matchLabels: app })).toEqual([2, 2, 2]);
  });

  it('spreads pods one per node over hostname with maxSkew 1', () => {
    const pods = unschedulablePods(4, {
      labels: app,
      topologySpreadConstraints: [spread(HOST, app)],
    });
    const r = schedule(env(), pods);
    expect(r.newNodeClaims).toHaveLength(4);
    expect(expectSkew(r, HOST, { matchLabels: app })).toEqual([1, 1, 1, 1]);
  });

  it('allows two pods per node over hostname with maxSkew 2', () => {
    const pods = unschedulablePods(4, {
      labels: app,
      topologySpreadConstraints: [spread(HOST, app, { maxSkew: 2 })],
    });
    expect(expectSkew(schedule(env(), pods), HOST, { matchLabels: app })).toEqual([2, 2]);
  });

  it('spreads over capacity type', () => {
    const pods = unschedulablePods(4, {
      labels: app,
      topologySpreadConstraints: [spread(CAPACITY, app)],
    });
    const r = schedule(env(), pods);
    expect(expectSkew(r, CAPACITY, { matchLabels: app })).toEqual([2, 2]);
  });

  it('spreads over a custom label defined by the pool requirements', () => {
    const pools = [
      nodePool({ requirements: [{ key: 'rack', operator: 'In', values: ['r1', 'r2'] }] }),
    ];
    const pods = unschedulablePods(4, {
      labels: app,
      topologySpreadConstraints: [spread('rack', app)],
    });
    expect(
      expectSkew(schedule(env({ nodePools: pools }), pods), 'rack', { matchLabels: app }),
    ).toEqual([2, 2]);
  });

  it('counts pods already running in a zone', () => {
    const running = [1, 2].map(() => pod({ labels: app, phase: 'Running' }));
    const node = existingNode({
      name: 'full',
      labels: { [ZONE]: 'test-zone-1' },
      allocatable: { cpu: '0', memory: '0', pods: '0' },
      pods: running,
    });
    const pods = unschedulablePods(4, {
      labels: app,
      topologySpreadConstraints: [spread(ZONE, app)],
    });
    const r = schedule(env({ existingNodes: [node] }), pods);
    for (const p of pods) expect(zoneOf(expectNewNodeClaim(r, p))).not.toEqual(['test-zone-1']);
  });

  it('keeps to the zones the pod allows when the node affinity policy is Honor', () => {
    const pods = unschedulablePods(4, {
      labels: app,
      nodeRequirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-2'] }],
      topologySpreadConstraints: [spread(ZONE, app)],
    });
    expect(expectSkew(schedule(env(), pods), ZONE, { matchLabels: app })).toEqual([2, 2]);
  });

  it('counts zones the pod cannot use when the node affinity policy is Ignore, blocking the skew', () => {
    const pods = unschedulablePods(2, {
      labels: app,
      nodeRequirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }],
      topologySpreadConstraints: [spread(ZONE, app, { nodeAffinityPolicy: 'Ignore' })],
    });
    const r = schedule(env(), pods);
    // Zones 2 and 3 count (empty), so zone 1 may hold only one pod.
    expect(r.podErrors.size).toBe(1);
  });

  it('leaves out zones reached only through untolerated taints when the taints policy is Honor', () => {
    const pools = [
      nodePool({
        name: 'zone1',
        requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }],
      }),
      nodePool({
        name: 'tainted',
        requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-2', 'test-zone-3'] }],
        taints: [{ key: 'dedicated', effect: 'NoSchedule' }],
      }),
    ];
    const honor = unschedulablePods(3, {
      labels: app,
      topologySpreadConstraints: [spread(ZONE, app, { nodeTaintsPolicy: 'Honor' })],
    });
    expect(schedule(env({ nodePools: pools }), honor).podErrors.size).toBe(0);
    const ignore = unschedulablePods(3, {
      labels: app,
      topologySpreadConstraints: [spread(ZONE, app)],
    });
    expect(schedule(env({ nodePools: pools }), ignore).podErrors.size).toBe(2);
  });

  it('treats the global minimum as zero while fewer domains than minDomains exist', () => {
    const pools = [
      nodePool({
        requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-2'] }],
      }),
    ];
    const pods = unschedulablePods(4, {
      labels: app,
      topologySpreadConstraints: [spread(ZONE, app, { minDomains: 3 })],
    });
    const r = schedule(env({ nodePools: pools }), pods);
    // With min forced to 0 and maxSkew 1, each of the two zones takes one pod.
    expect(r.podErrors.size).toBe(2);
    expect(expectSkew(r, ZONE, { matchLabels: app })).toEqual([1, 1]);
  });

  it('narrows the selector with matchLabelKeys to the pod’s own revision', () => {
    const v1 = unschedulablePods(3, {
      labels: { app: 'web', rev: '1' },
      topologySpreadConstraints: [spread(HOST, app, { matchLabelKeys: ['rev'] })],
    });
    const v2 = unschedulablePods(3, {
      labels: { app: 'web', rev: '2' },
      topologySpreadConstraints: [spread(HOST, app, { matchLabelKeys: ['rev'] })],
    });
    const r = schedule(env(), [...v1, ...v2]);
    // Each revision spreads on its own, so revisions can share nodes: 3 nodes, not 6.
    expect(r.newNodeClaims).toHaveLength(3);
  });

  it('enforces ScheduleAnyway constraints until relaxation drops them', () => {
    const pools = [
      nodePool({ requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }] }),
    ];
    const pods = unschedulablePods(3, {
      labels: app,
      topologySpreadConstraints: [
        spread(HOST, app, { whenUnsatisfiable: 'ScheduleAnyway' }),
        spread(ZONE, app, { whenUnsatisfiable: 'ScheduleAnyway' }),
      ],
    });
    const r = schedule(env({ nodePools: pools }), pods);
    expect(r.podErrors.size).toBe(0);
    // The hostname constraint is still honoured for the first pods.
    expect(r.newNodeClaims.length).toBeGreaterThan(1);
  });

  it('ignores ScheduleAnyway constraints under the Ignore policy', () => {
    const pods = unschedulablePods(3, {
      labels: app,
      requests: { cpu: '100m' },
      topologySpreadConstraints: [spread(HOST, app, { whenUnsatisfiable: 'ScheduleAnyway' })],
    });
    expect(schedule(env({ preferencePolicy: 'Ignore' }), pods).newNodeClaims).toHaveLength(1);
  });
});

describe('pod affinity', () => {
  it('co-locates a pod with the pod it requires on the same node', () => {
    const db = unschedulablePod({ labels: { app: 'db' }, requests: { cpu: '1' } });
    const cache = unschedulablePod({ podAffinity: [affinityTerm(HOST, { app: 'db' })] });
    const r = schedule(env(), [db, cache]);
    expect(expectNewNodeClaim(r, cache)).toBe(expectNewNodeClaim(r, db));
  });

  it('puts a pod in the zone of the pod it requires', () => {
    const db = unschedulablePod({
      labels: { app: 'db' },
      nodeSelector: { [ZONE]: 'test-zone-3' },
      requests: { cpu: '1' },
    });
    const web = unschedulablePod({
      requests: { cpu: '1500m' },
      podAffinity: [affinityTerm(ZONE, { app: 'db' })],
    });
    const r = schedule(env(), [db, web]);
    expect(zoneOf(expectNewNodeClaim(r, web))).toEqual(['test-zone-3']);
  });

  it('joins a running pod on an existing node', () => {
    const running = pod({ labels: { app: 'db' }, phase: 'Running' });
    const node = existingNode({ name: 'db-node', pods: [running] });
    const p = unschedulablePod({ podAffinity: [affinityTerm(HOST, { app: 'db' })] });
    expect(expectScheduled(schedule(env({ existingNodes: [node] }), [p]), p)).toEqual({
      kind: 'existing',
      name: 'db-node',
    });
  });

  it('bootstraps self-affinity: the first pod picks a zone and the rest follow', () => {
    const pods = unschedulablePods(5, {
      labels: { group: 'g' },
      requests: { cpu: '3' },
      podAffinity: [affinityTerm(ZONE, { group: 'g' })],
    });
    const r = schedule(env(), pods);
    expect(new Set(r.newNodeClaims.map((c) => zoneOf(c).join()))).toHaveProperty('size', 1);
  });

  it('fails a pod whose required affinity matches no pod', () => {
    const p = unschedulablePod({ podAffinity: [affinityTerm(ZONE, { app: 'missing' })] });
    expect(expectNotScheduled(schedule(env(), [p]), p)).toContain(
      'pod affinity on topology.kubernetes.io/zone',
    );
  });

  it('follows a preferred affinity when it can and drops it when it cannot', () => {
    const db = unschedulablePod({ labels: { app: 'db' }, requests: { cpu: '1' } });
    const near = unschedulablePod({
      preferredPodAffinity: [{ weight: 10, podAffinityTerm: affinityTerm(HOST, { app: 'db' }) }],
    });
    const lonely = unschedulablePod({
      preferredPodAffinity: [{ weight: 10, podAffinityTerm: affinityTerm(HOST, { app: 'none' }) }],
    });
    const r = schedule(env(), [db, near, lonely]);
    expect(expectNewNodeClaim(r, near)).toBe(expectNewNodeClaim(r, db));
    expectScheduled(r, lonely);
  });
});

describe('pod anti-affinity', () => {
  it('gives each pod its own node with hostname anti-affinity to its own label', () => {
    const pods = unschedulablePods(5, { labels: app, podAntiAffinity: [affinityTerm(HOST, app)] });
    expect(schedule(env(), pods).newNodeClaims).toHaveLength(5);
  });

  it('blocks every zone an undecided node claim could launch in, as upstream does', () => {
    // The first pod's claim may still launch in any zone, so all three zones count as taken and
    // the other replicas wait for the next batch (when the node's zone is known).
    const pods = unschedulablePods(3, { labels: app, podAntiAffinity: [affinityTerm(ZONE, app)] });
    const r = schedule(env(), pods);
    expect(r.newNodeClaims).toHaveLength(1);
    expect(zoneOf(r.newNodeClaims[0]!)).toEqual(['test-zone-1', 'test-zone-2', 'test-zone-3']);
    expect(expectNotScheduled(r, pods[1]!)).toContain(
      'pod anti-affinity on topology.kubernetes.io/zone',
    );
  });

  it('places zonal anti-affine pods in different zones when each pod picks its zone', () => {
    const pods = ['test-zone-1', 'test-zone-2', 'test-zone-3', 'test-zone-1'].map((zone) =>
      unschedulablePod({
        labels: app,
        nodeSelector: { [ZONE]: zone },
        podAntiAffinity: [affinityTerm(ZONE, app)],
      }),
    );
    const r = schedule(env(), pods);
    expect(r.podErrors.size).toBe(1);
    expect(expectSkew(r, ZONE, { matchLabels: app })).toEqual([1, 1, 1]);
  });

  it('keeps a pod away from a running pod that it is anti-affine to', () => {
    const running = pod({ labels: { app: 'db' }, phase: 'Running' });
    const node = existingNode({ name: 'db-node', pods: [running] });
    const p = unschedulablePod({ podAntiAffinity: [affinityTerm(HOST, { app: 'db' })] });
    expect(expectScheduled(schedule(env({ existingNodes: [node] }), [p]), p).kind).toBe(
      'nodeclaim',
    );
  });

  it('keeps a pod away from a running pod that is anti-affine to it (inverse anti-affinity)', () => {
    const running = pod({
      labels: { app: 'db' },
      phase: 'Running',
      podAntiAffinity: [affinityTerm(ZONE, { app: 'web' })],
    });
    const node = existingNode({
      name: 'db-node',
      labels: { [ZONE]: 'test-zone-1' },
      pods: [running],
    });
    const p = unschedulablePod({ labels: { app: 'web' } });
    const r = schedule(env({ existingNodes: [node] }), [p]);
    expect(expectScheduled(r, p).kind).toBe('nodeclaim');
    expect(zoneOf(expectNewNodeClaim(r, p))).not.toContain('test-zone-1');
  });

  it('keeps later pods out of the node of a scheduled pod that is anti-affine to them', () => {
    const lonely = unschedulablePod({
      labels: { app: 'lonely' },
      requests: { cpu: '1' },
      podAntiAffinity: [affinityTerm(HOST, { app: 'web' })],
    });
    const web = unschedulablePod({ labels: { app: 'web' }, requests: { cpu: '100m' } });
    const r = schedule(env(), [lonely, web]);
    expect(expectNewNodeClaim(r, web)).not.toBe(expectNewNodeClaim(r, lonely));
  });

  it('relaxes a preferred anti-affinity that cannot be met', () => {
    const pods = unschedulablePods(5, {
      labels: app,
      preferredPodAntiAffinity: [{ weight: 10, podAffinityTerm: affinityTerm(ZONE, app) }],
    });
    const r = schedule(env(), pods);
    expect(r.podErrors.size).toBe(0);
  });

  it('ignores preferred anti-affinity under the Ignore policy', () => {
    const pods = unschedulablePods(3, {
      labels: app,
      requests: { cpu: '100m' },
      preferredPodAntiAffinity: [{ weight: 10, podAffinityTerm: affinityTerm(HOST, app) }],
    });
    expect(schedule(env({ preferencePolicy: 'Ignore' }), pods).newNodeClaims).toHaveLength(1);
    expect(schedule(env({ preferencePolicy: 'Respect' }), pods).newNodeClaims).toHaveLength(3);
  });

  it('counts anti-affinity only within the term’s namespaces', () => {
    const a = unschedulablePod({
      namespace: 'a',
      labels: app,
      podAntiAffinity: [affinityTerm(HOST, app)],
    });
    const b = unschedulablePod({
      namespace: 'b',
      labels: app,
      podAntiAffinity: [affinityTerm(HOST, app)],
    });
    expect(schedule(env(), [a, b]).newNodeClaims).toHaveLength(1);
  });
});
