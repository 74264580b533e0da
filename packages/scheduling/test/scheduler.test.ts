import { describe, expect, it } from 'vitest';
import { Scheduler } from '../src/index.js';
import {
  existingNode,
  expectNewNodeClaim,
  expectNotScheduled,
  expectScheduled,
  instanceType,
  nodePool,
  schedule,
  standardInstanceTypes,
  unschedulablePod,
  unschedulablePods,
  type TestEnvironment,
} from '../src/testing/index.js';

const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
  nodePools: [nodePool()],
  instanceTypes: standardInstanceTypes(),
  ...extra,
});
const names = (c: { instanceTypeOptions: readonly { name: string }[] }) =>
  c.instanceTypeOptions.map((it) => it.name);

describe('resources and instance types', () => {
  it('opens one node claim for a pod that fits the cheapest instance type', () => {
    const p = unschedulablePod({ requests: { cpu: '1', memory: '1Gi' } });
    const r = schedule(env(), [p]);
    const claim = expectNewNodeClaim(r, p);
    expect(r.newNodeClaims).toHaveLength(1);
    expect(names(claim)[0]).toBe('small');
    expect(claim.nodePoolName).toBe('default');
  });

  it('orders instance-type options by their cheapest compatible offering', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(names(claim)).toEqual(['small', 'arm-medium', 'medium', 'large', 'gpu']);
  });

  it('drops instance types too small for the pod', () => {
    const p = unschedulablePod({ requests: { cpu: '3', memory: '6Gi' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(names(claim)).toEqual(['arm-medium', 'medium', 'large', 'gpu']);
  });

  it('packs pods onto one node claim while they fit', () => {
    const pods = unschedulablePods(4, { requests: { cpu: '1' } });
    const r = schedule(env(), pods);
    expect(r.newNodeClaims).toHaveLength(1);
    expect(r.newNodeClaims[0]!.pods).toHaveLength(4);
    expect(names(r.newNodeClaims[0]!)).toEqual(['arm-medium', 'medium', 'large', 'gpu']);
    expect(r.newNodeClaims[0]!.requests).toMatchObject({ cpu: 4000, pods: 4 });
  });

  it('opens a second node claim when the largest instance type is full', () => {
    const pods = unschedulablePods(3, { requests: { cpu: '5' } });
    const r = schedule(
      env({ instanceTypes: [instanceType({ name: 'large', cpu: '8', memory: '16Gi' })] }),
      pods,
    );
    expect(r.newNodeClaims).toHaveLength(3);
  });

  it('counts pods against the pods capacity of the instance type', () => {
    const pods = unschedulablePods(5);
    const r = schedule(env({ instanceTypes: [instanceType({ name: 'tiny', pods: '2' })] }), pods);
    expect(r.newNodeClaims.map((c) => c.pods.length)).toEqual([2, 2, 1]);
  });

  it('fails a pod that no instance type can hold, naming the resources', () => {
    const p = unschedulablePod({ requests: { cpu: '64' } });
    const error = expectNotScheduled(schedule(env(), [p]), p);
    expect(error).toContain('nodepool "default"');
    expect(error).toContain('no instance type has enough resources');
    expect(error).toContain('cpu: 64');
  });

  it('schedules an extended resource only onto instance types that have it', () => {
    const p = unschedulablePod({ requests: { 'nvidia.com/gpu': '1' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(names(claim)).toEqual(['gpu']);
  });

  it('counts init containers, sidecars and pod overhead the way the kube-scheduler does', () => {
    // max(init 3 cpu + sidecar 1, containers 1 + sidecar 1) = 4 cpu, plus 500m overhead.
    const p = unschedulablePod({
      requests: { cpu: '1' },
      initContainers: [
        { requests: { cpu: '1' }, restartPolicy: 'Always' },
        { requests: { cpu: '3' } },
      ],
      overhead: { cpu: '500m' },
    });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requests['cpu']).toBe(4500);
    expect(names(claim)).toEqual(['large', 'gpu']);
  });

  it('uses limits as requests when a container sets only limits', () => {
    const p = unschedulablePod({ limits: { cpu: '3' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requests['cpu']).toBe(3000);
  });

  it('reports a pod with a malformed request as invalid and schedules the others', () => {
    const bad = unschedulablePod({ requests: { cpu: 'lots' } });
    const good = unschedulablePod({ requests: { cpu: '1' } });
    const r = schedule(env(), [bad, good]);
    expect(r.podErrors.get(bad)).toMatch(/^invalid pod: /);
    expectNewNodeClaim(r, good);
    expect(r.podErrors.size).toBe(1);
  });

  it('refuses pods with Dynamic Resource Allocation claims, as upstream does by default', () => {
    const p = unschedulablePod({ resourceClaims: ['gpu-claim'] });
    expect(expectNotScheduled(schedule(env(), [p]), p)).toContain('Dynamic Resource Allocation');
  });

  it('truncates instance-type options to maxInstanceTypes, cheapest first', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const claim = expectNewNodeClaim(schedule(env({ maxInstanceTypes: 2 }), [p]), p);
    expect(names(claim)).toEqual(['small', 'arm-medium']);
    expect(claim.requirements.get('node.kubernetes.io/instance-type').valuesList()).toEqual([
      'arm-medium',
      'small',
    ]);
  });

  it('narrows capacity type to what the kept options offer', () => {
    const p = unschedulablePod({ nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(claim.requirements.get('karpenter.sh/capacity-type').valuesList()).toEqual(['spot']);
  });

  it('reports "no nodepools found" when there is no NodePool', () => {
    const p = unschedulablePod();
    expect(expectNotScheduled(schedule(env({ nodePools: [] }), [p]), p)).toBe('no nodepools found');
  });

  it('gives the same result for repeated solves of the same scheduler', () => {
    const pods = unschedulablePods(20, { requests: { cpu: '700m' } });
    const e = env();
    const s = new Scheduler({
      nodePools: e.nodePools,
      instanceTypes: new Map([['default', e.instanceTypes]]),
    });
    const first = s.solve(pods);
    const second = s.solve(pods);
    expect(second.newNodeClaims.map((c) => [c.pods.length, names(c)])).toEqual(
      first.newNodeClaims.map((c) => [c.pods.length, names(c)]),
    );
  });
});

describe('queue order', () => {
  it('places the biggest pods first, so a big pod is not stranded behind small ones', () => {
    const small = unschedulablePods(6, { requests: { cpu: '1' } });
    const big = unschedulablePod({ requests: { cpu: '7' } });
    const r = schedule(
      env({ instanceTypes: [instanceType({ name: 'large', cpu: '8', memory: '16Gi' })] }),
      [...small, big],
    );
    // The 7-cpu pod opens the first claim; the small pods share the rest.
    expect(expectNewNodeClaim(r, big)).toBe(r.newNodeClaims[0]);
    expect(r.newNodeClaims).toHaveLength(2);
  });

  it('retries failed pods after others succeed (affinity to a pod later in the queue)', () => {
    const backend = unschedulablePod({ labels: { app: 'backend' }, requests: { cpu: '100m' } });
    const frontend = unschedulablePod({
      requests: { cpu: '2' },
      podAffinity: [
        {
          topologyKey: 'kubernetes.io/hostname',
          labelSelector: { matchLabels: { app: 'backend' } },
        },
      ],
    });
    const r = schedule(env(), [frontend, backend]);
    expect(expectNewNodeClaim(r, frontend)).toBe(expectNewNodeClaim(r, backend));
  });
});

describe('existing nodes', () => {
  it('places pods on an existing node with room before opening a node claim', () => {
    const node = existingNode({ name: 'node-a' });
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const r = schedule(env({ existingNodes: [node] }), [p]);
    expect(expectScheduled(r, p)).toEqual({ kind: 'existing', name: 'node-a' });
    expect(r.newNodeClaims).toHaveLength(0);
  });

  it('subtracts the requests of pods already bound to the node', () => {
    const bound = unschedulablePod({ requests: { cpu: '3500m' }, phase: 'Running' });
    const node = existingNode({ name: 'busy', pods: [bound] });
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const r = schedule(env({ existingNodes: [node] }), [p]);
    expect(expectScheduled(r, p).kind).toBe('nodeclaim');
  });

  it('tries initialized nodes before uninitialized ones, then by name', () => {
    const nodes = [
      existingNode({ name: 'a-uninitialized', initialized: false }),
      existingNode({ name: 'z-initialized' }),
      existingNode({ name: 'b-initialized' }),
    ];
    const p = unschedulablePod({ requests: { cpu: '1' } });
    expect(expectScheduled(schedule(env({ existingNodes: nodes }), [p]), p)).toEqual({
      kind: 'existing',
      name: 'b-initialized',
    });
  });

  it('respects the taints of existing nodes', () => {
    const node = existingNode({
      taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }],
    });
    const p = unschedulablePod({ requests: { cpu: '1' } });
    expect(expectScheduled(schedule(env({ existingNodes: [node] }), [p]), p).kind).toBe(
      'nodeclaim',
    );
  });

  it('matches node selectors against existing node labels', () => {
    const node = existingNode({ labels: { team: 'a' } });
    const wanted = unschedulablePod({ nodeSelector: { team: 'a' } });
    const r = schedule(
      env({ existingNodes: [node], nodePools: [nodePool({ labels: { team: 'b' } })] }),
      [wanted],
    );
    expect(expectScheduled(r, wanted).kind).toBe('existing');
  });
});
