/**
 * Volume topology and attach limits in the scheduler (issue 15, item
 * 10): a pod's volumes narrow the node it may go on (each alternative tried in order), a
 * NodePool's minValues meets that narrowing as the policy says (Strict: pending with the
 * minValues reason; BestEffort: one claim, minValues lowered, marked relaxed; never a claim
 * listing fewer values than its minValues), and an existing node takes no more CSI volumes of a
 * driver than its CSINode allows. Every result is re-checked by validateAssignment, which
 * verifies volume zones against every zone a claim may still launch in.
 */
import type { Pod } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { Requirement } from '../src/requirement.js';
import { Requirements } from '../src/requirements.js';
import {
  existingNode,
  expectNewNodeClaim,
  expectNotScheduled,
  expectScheduled,
  nodePool,
  pod,
  schedule,
  standardInstanceTypes,
  unschedulablePod,
  type TestEnvironment,
} from '../src/testing/index.js';
import type { PodVolumes } from '../src/volumes.js';

const ZONE = 'topology.kubernetes.io/zone';
const inZones = (...zones: string[]) => new Requirements(Requirement.create(ZONE, 'In', zones));

/** A lookup giving each pod the volumes set for it. */
function volumes(entries: [Pod, PodVolumes][]): (p: Pod) => PodVolumes | undefined {
  const byPod = new Map(entries);
  return (p) => byPod.get(p);
}

describe.each(['wasm', 'ts'] as const)('volume topology (%s solver)', (solver) => {
  const env = (extra: Partial<TestEnvironment> = {}): TestEnvironment => ({
    nodePools: [nodePool()],
    instanceTypes: standardInstanceTypes(),
    solver,
    ...extra,
  });

  it('places a pod whose volume is pinned to a zone in that zone', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const r = schedule(
      env({
        podVolumes: volumes([[p, { requirements: [inZones('test-zone-3')], attachments: [] }]]),
      }),
      [p],
    );
    expect(expectNewNodeClaim(r, p).requirements.get(ZONE).valuesList()).toEqual(['test-zone-3']);
  });

  it('tries the alternatives in order: the first the NodePool cannot launch in is skipped', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const pool = nodePool({
      requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-2'] }],
    });
    const r = schedule(
      env({
        nodePools: [pool],
        podVolumes: volumes([
          [p, { requirements: [inZones('test-zone-3'), inZones('test-zone-2')], attachments: [] }],
        ]),
      }),
      [p],
    );
    expect(expectNewNodeClaim(r, p).requirements.get(ZONE).valuesList()).toEqual(['test-zone-2']);
  });

  it('leaves a pod pending when its volume zone is one no NodePool launches in', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const pool = nodePool({
      requirements: [{ key: ZONE, operator: 'In', values: ['test-zone-1'] }],
    });
    const r = schedule(
      env({
        nodePools: [pool],
        podVolumes: volumes([[p, { requirements: [inZones('test-zone-3')], attachments: [] }]]),
      }),
      [p],
    );
    expect(expectNotScheduled(r, p)).toContain(ZONE);
  });

  it('keeps a pod off an existing node in another zone than its volume', () => {
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const other = existingNode({ name: 'other', labels: { [ZONE]: 'test-zone-1' } });
    const r = schedule(
      env({
        existingNodes: [other],
        podVolumes: volumes([[p, { requirements: [inZones('test-zone-2')], attachments: [] }]]),
      }),
      [p],
    );
    expect(r.existingNodes).toEqual([]);
    expect(expectNewNodeClaim(r, p).requirements.get(ZONE).valuesList()).toEqual(['test-zone-2']);
  });

  describe('a NodePool with zone In [1, 2] minValues 2 and a volume pinned to zone 1', () => {
    const pool = nodePool({
      requirements: [
        { key: ZONE, operator: 'In', values: ['test-zone-1', 'test-zone-2'], minValues: 2 },
      ],
    });
    const p = unschedulablePod({ requests: { cpu: '1' } });
    const pinned = volumes([[p, { requirements: [inZones('test-zone-1')], attachments: [] }]]);

    it('Strict: the pod stays pending with the minValues reason', () => {
      const r = schedule(env({ nodePools: [pool], podVolumes: pinned }), [p]);
      expect(r.newNodeClaims).toEqual([]);
      expect(expectNotScheduled(r, p)).toMatch(
        /minValues for topology\.kubernetes\.io\/zone needs 2 distinct values, only 1 available/,
      );
    });

    it('BestEffort: one claim in zone 1, its minValues lowered to 1 and marked relaxed', () => {
      const r = schedule(
        env({ nodePools: [pool], podVolumes: pinned, minValuesPolicy: 'BestEffort' }),
        [p],
      );
      const claim = expectNewNodeClaim(r, p);
      expect(r.newNodeClaims).toHaveLength(1);
      const zone = claim.requirements.get(ZONE);
      expect(zone.valuesList()).toEqual(['test-zone-1']);
      expect(zone.minValues).toBe(1);
      expect(claim.minValuesRelaxed).toBe(true);
    });
  });

  it('keeps an existing node within its CSI attach limit', () => {
    const attach = (volume: string) => ({ driver: 'ebs.csi.aws.com', volume });
    const running = pod({ phase: 'Running', requests: { cpu: '100m' } });
    const node = existingNode({
      name: 'n',
      labels: { [ZONE]: 'test-zone-1' },
      pods: [running],
      volumeLimits: { 'ebs.csi.aws.com': 2 },
    });
    const [a, b, c] = [0, 1, 2].map(() => unschedulablePod({ requests: { cpu: '100m' } })) as [
      Pod,
      Pod,
      Pod,
    ];
    const r = schedule(
      env({
        existingNodes: [node],
        podVolumes: volumes([
          [running, { requirements: [], attachments: [attach('default/data-0')] }],
          [a, { requirements: [], attachments: [attach('default/data-0')] }],
          [b, { requirements: [], attachments: [attach('default/data-1')] }],
          [c, { requirements: [], attachments: [attach('default/data-2')] }],
        ]),
      }),
      [a, b, c],
    );
    // data-0 is attached already and data-1 is the second: c's data-2 would be a third.
    expect(expectScheduled(r, a)).toEqual({ kind: 'existing', name: 'n' });
    expect(expectScheduled(r, b)).toEqual({ kind: 'existing', name: 'n' });
    expect(expectNewNodeClaim(r, c).pods).toEqual([c]);
  });
});
