import { describe, expect, it } from 'vitest';
import { Scheduler } from '@karpenter-ts/scheduling';
import { validateAssignment } from '@karpenter-ts/scheduling/testing';
import {
  benchmarkInstanceTypes,
  benchmarkNodePool,
  diversePods,
  genericPods,
  largeBenchmarkNodePool,
  pendingNodePool,
  preferencePods,
} from '../src/scheduling-workload.js';

const CPUS = new Set(['100m', '250m', '500m', '1000m', '1500m']);
const MEMORIES = new Set(['100Mi', '256Mi', '512Mi', '1024Mi', '2048Mi', '4096Mi']);

describe('the reference scheduling workload', () => {
  it('has 400 instance types fake-it-0..399 with the reference shapes and prices', () => {
    const types = benchmarkInstanceTypes();
    expect(types).toHaveLength(400);
    const it7 = types[7]!;
    expect(it7.name).toBe('fake-it-7');
    expect(it7.capacity).toEqual({ cpu: 8000, memory: 16 * 1024 ** 3, pods: 80 });
    expect(it7.allocatable()).toEqual({
      cpu: 7900,
      memory: 16 * 1024 ** 3 - 10 * 1024 ** 2,
      pods: 80,
    });
    expect(it7.offerings.map((o) => `${o.capacityType}/${o.zone}`)).toEqual([
      'spot/test-zone-1',
      'spot/test-zone-2',
      'on-demand/test-zone-1',
      'on-demand/test-zone-2',
      'on-demand/test-zone-3',
    ]);
    expect(it7.offerings[0]!.price).toBeCloseTo(0.1 * 8 + (0.1 * 16 * 1024 ** 3) / 1e9, 9);
    expect(it7.requirements.get('size').has('large')).toBe(true);
    expect(it7.requirements.get('special').has('optional')).toBe(true);
    expect(types[1]!.requirements.get('size').has('small')).toBe(true);
    expect(types[1]!.requirements.get('special').operator()).toBe('DoesNotExist');
    expect(types[3]!.requirements.get('integer').valuesList()).toEqual(['4']);
  });

  it('splits the diverse mix into five equal groups plus generic remainder', () => {
    const pods = diversePods(1003);
    expect(pods).toHaveLength(1003);
    const spreadKeys = pods.map((p) => p.spec?.topologySpreadConstraints?.[0]?.topologyKey);
    expect(spreadKeys.filter((k) => k === 'topology.kubernetes.io/zone')).toHaveLength(200);
    expect(spreadKeys.filter((k) => k === 'kubernetes.io/hostname')).toHaveLength(200);
    expect(pods.filter((p) => p.spec?.affinity?.podAffinity)).toHaveLength(200);
    expect(pods.filter((p) => p.spec?.affinity?.podAntiAffinity)).toHaveLength(200);
    const generic = pods.filter((p) => !p.spec?.affinity && !p.spec?.topologySpreadConstraints);
    expect(generic).toHaveLength(203);
    for (const p of pods) {
      const requests = p.spec!.containers[0]!.resources!.requests!;
      expect(CPUS.has(requests['cpu']!)).toBe(true);
      expect(MEMORIES.has(requests['memory']!)).toBe(true);
    }
  });

  it('is the same for the same seed', () => {
    const a = diversePods(100).map((p) => [p.metadata?.labels, p.spec?.containers[0]?.resources]);
    const b = diversePods(100).map((p) => [p.metadata?.labels, p.spec?.containers[0]?.resources]);
    expect(a).toEqual(b);
  });

  it('labels every preference pod app=nginx with the three preferences', () => {
    const pods = preferencePods(10);
    for (const p of pods) {
      expect(p.metadata?.labels).toEqual({ app: 'nginx' });
      expect(
        p.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.map(
          (w) => w.weight,
        ),
      ).toEqual([10, 1]);
      expect(
        p.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution,
      ).toHaveLength(1);
    }
  });

  it('schedules 500 diverse pods onto one node per anti-affinity pod, validly', () => {
    const pods = diversePods(500);
    const nodePools = [benchmarkNodePool()];
    const instanceTypes = new Map([['default', benchmarkInstanceTypes()]]);
    const results = new Scheduler({ nodePools, instanceTypes, solver: 'ts' }).solve(pods);
    expect(results.podErrors.size).toBe(0);
    expect(results.newNodeClaims).toHaveLength(100);
    validateAssignment(results, { nodePools, instanceTypes, pods });
  });

  it('gives the large case the reference NodePool without its limits', () => {
    const reference = benchmarkNodePool();
    const large = largeBenchmarkNodePool();
    expect(reference.spec.limits).toBeDefined();
    expect(large.spec.limits).toBeUndefined();
    expect(large.metadata?.name).toBe(reference.metadata?.name);
    expect(large.spec.template).toEqual(reference.spec.template);
  });

  it('gives the pending-heavy cases the reference NodePool with the AWS default cpu limit', () => {
    const reference = benchmarkNodePool();
    const pending = pendingNodePool();
    expect(pending.spec.limits).toEqual({ cpu: '1000' });
    expect(pending.metadata?.name).toBe(reference.metadata?.name);
    expect(pending.spec.template).toEqual(reference.spec.template);
  });

  it('draws generic pods with reference requests and a linux node selector', () => {
    const pods = genericPods(50);
    expect(pods).toHaveLength(50);
    for (const p of pods) {
      expect(p.spec?.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
      expect(p.spec?.affinity).toBeUndefined();
      const requests = p.spec!.containers[0]!.resources!.requests!;
      expect(CPUS.has(requests['cpu']!)).toBe(true);
      expect(MEMORIES.has(requests['memory']!)).toBe(true);
    }
  });

  it('leaves most of a pending-heavy batch pending once the cpu limit is used up, validly', () => {
    // Each new node claim counts as its largest option (up to 400 cpu), so 1000 cpu allow 3.
    const pods = genericPods(3000);
    const nodePools = [pendingNodePool()];
    const instanceTypes = new Map([['default', benchmarkInstanceTypes()]]);
    const results = new Scheduler({ nodePools, instanceTypes, solver: 'ts' }).solve(pods);
    expect(results.newNodeClaims).toHaveLength(3);
    const placed = results.newNodeClaims.reduce((n, c) => n + c.pods.length, 0);
    expect(placed + results.podErrors.size).toBe(3000);
    expect(results.podErrors.size).toBeGreaterThan(2000);
    for (const reason of results.podErrors.values()) expect(reason).toMatch(/remaining limits/);
    validateAssignment(results, { nodePools, instanceTypes, pods });
  });
});
