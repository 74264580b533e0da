/**
 * A cloud provider's well-known labels (upstream providers add theirs to `v1.WellKnownLabels`):
 * a pod may require one although its NodePool does not mention it, picking any value the
 * NodePool leaves open, and the instance types then decide which values exist.
 */
import { describe, expect, it } from 'vitest';
import {
  daemonSet,
  expectNewNodeClaim,
  expectNotScheduled,
  instanceType,
  nodePool,
  schedule,
  spread,
  unschedulablePod,
  unschedulablePods,
  type TestEnvironment,
} from '../src/testing/index.js';

/** The provider label under test, like `karpenter.azure.com/sku-cpu`. */
const CPU = 'example.cloud/instance-cpu';
const FAMILY = 'example.cloud/instance-family';
const ZONE = 'topology.kubernetes.io/zone';

/** One type per cpu count, each labelled with its cpu count and family `c`. */
const catalog = [2, 4, 8, 16].map((cpu) =>
  instanceType({
    name: `c-${cpu}`,
    cpu: String(cpu),
    memory: `${2 * cpu}Gi`,
    price: cpu / 10,
    labels: { [CPU]: String(cpu), [FAMILY]: 'c' },
  }),
);

const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
  nodePools: [
    nodePool({ requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }),
  ],
  instanceTypes: catalog,
  wellKnownLabels: [CPU, FAMILY],
  ...extra,
});
const names = (c: { instanceTypeOptions: readonly { name: string }[] }) =>
  c.instanceTypeOptions.map((it) => it.name);

describe("a provider's well-known labels", () => {
  it('schedules a pod whose node selector picks a value the NodePool leaves open onto the types with it', () => {
    const p = unschedulablePod({ nodeSelector: { [CPU]: '8' } });
    const claim = expectNewNodeClaim(schedule(env(), [p]), p);
    expect(names(claim)).toEqual(['c-8']);
    expect(claim.requirements.get(CPU).valuesList()).toEqual(['8']);
  });

  it('schedules a pod whose required node affinity uses Gt on the label', () => {
    const p = unschedulablePod({
      nodeRequirements: [{ key: CPU, operator: 'Gt', values: ['4'] }],
    });
    expect(names(expectNewNodeClaim(schedule(env(), [p]), p))).toEqual(['c-8', 'c-16']);
  });

  it('keeps a pod pending with a clear reason when no instance type has the value', () => {
    const p = unschedulablePod({ nodeSelector: { [CPU]: '3' } });
    const reason = expectNotScheduled(schedule(env(), [p]), p);
    expect(reason).toContain('no instance type met the requirements');
    expect(reason).toContain(`${CPU} In [3]`);
    expect(reason).not.toContain('does not have known values');
  });

  it('keeps a pod pending when it asks for a value the NodePool excludes', () => {
    const pools = [nodePool({ requirements: [{ key: CPU, operator: 'In', values: ['2', '4'] }] })];
    const p = unschedulablePod({ nodeSelector: { [CPU]: '8' } });
    expect(expectNotScheduled(schedule(env({ nodePools: pools }), [p]), p)).toContain(
      `key ${CPU}, ${CPU} In [8] not in ${CPU} In [2 4]`,
    );
  });

  it('treats the label as unknown when the scheduler is not told it is well known', () => {
    const p = unschedulablePod({ nodeSelector: { [CPU]: '8' } });
    const { wellKnownLabels: _, ...withoutProvider } = env();
    expect(expectNotScheduled(schedule(withoutProvider, [p]), p)).toContain(
      `label "${CPU}" does not have known values`,
    );
  });

  it('names the provider label in the hint for a near-miss key', () => {
    const p = unschedulablePod({ nodeSelector: { 'example.cloud/instance-cpus': '8' } });
    expect(expectNotScheduled(schedule(env(), [p]), p)).toContain(
      `label "example.cloud/instance-cpus" does not have known values (typo of "${CPU}"?)`,
    );
  });

  it('counts the overhead of a DaemonSet that selects the label only on the types that have it', () => {
    const daemon = daemonSet({ requests: { cpu: '1' }, nodeSelector: { [CPU]: '8' } });
    // 7.5 cpu fits c-8 alone but not with the daemon's 1 cpu; c-16 takes both.
    const p = unschedulablePod({ requests: { cpu: '7500m' } });
    const claim = expectNewNodeClaim(schedule(env({ daemonSetPods: [daemon] }), [p]), p);
    expect(names(claim)).toEqual(['c-16']);
  });

  it('spreads pods that select the label across zones', () => {
    const app = { app: 'eight' };
    const pods = unschedulablePods(3, {
      labels: app,
      nodeSelector: { [CPU]: '8' },
      topologySpreadConstraints: [spread(ZONE, app)],
    });
    const r = schedule(env(), pods);
    const zones = r.newNodeClaims.map((c) => c.requirements.get(ZONE).valuesList());
    expect(zones.flat().sort()).toEqual(['test-zone-1', 'test-zone-2', 'test-zone-3']);
    for (const c of r.newNodeClaims) expect(names(c)).toEqual(['c-8']);
  });

  it('counts a node claim that leaves the label open in a spread whose node filter selects it', () => {
    const app = { app: 'web' };
    // The first pod's claim (zone 1) may still become an 8-cpu node, so it counts for the
    // second pod's spread (nodeAffinityPolicy Honor): zone 1 already holds one pod.
    const first = unschedulablePod({ labels: app, nodeSelector: { [ZONE]: 'test-zone-1' } });
    const second = unschedulablePod({
      labels: app,
      nodeSelector: { [CPU]: '8' },
      topologySpreadConstraints: [spread(ZONE, app)],
    });
    const r = schedule(env(), [first, second]);
    expect(expectNewNodeClaim(r, first).requirements.get(ZONE).valuesList()).toEqual([
      'test-zone-1',
    ]);
    expect(expectNewNodeClaim(r, second).requirements.get(ZONE).valuesList()).not.toContain(
      'test-zone-1',
    );
  });
});
