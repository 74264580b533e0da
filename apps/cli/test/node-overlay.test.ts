/**
 * NodeOverlays in the CLI (issue 12): with `--node-overlay` (upstream's `NodeOverlay` gate, off
 * by default) the input's overlays change the prices and capacity the controllers' provisioner
 * and consolidation decide with; without it they are read, reported as not applied, and change
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import {
  list,
  machine,
  nodePool,
  NOW,
  pods,
  simNodeClass,
  writeSnapshot,
} from './support/snapshot.js';

type Obj = Record<string, unknown>;

interface SimulationJson {
  nodeClaims: {
    nodePool: string;
    instanceType: string;
    pricePerHour: number;
    allocatable: Record<string, string>;
    pods: string[];
  }[];
  podErrors: { pod: string; reason: string }[];
  notes: string[];
}

/** The cheapest KWOK type a 500m/256Mi pod fits, and one a little dearer. */
const cheapest = 'c-1x-amd64-linux';
const dearer = 's-1x-amd64-linux';

function overlay(name: string, spec: Obj): Obj {
  return { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name }, spec };
}

const only = (type: string) => [
  { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [type] },
];

/** One pending pod `web` (500m, 256Mi), plus `extra` requests. */
function pendingPod(extra: Record<string, string> = {}): Obj[] {
  const [pod] = pods('web', undefined, 1) as [Obj];
  const spec = pod.spec as { containers: { resources: { requests: Record<string, string> } }[] };
  Object.assign(spec.containers[0]!.resources.requests, extra);
  return [pod];
}

async function simulate(objects: (Obj | Obj[])[], ...flags: string[]): Promise<SimulationJson> {
  const file = await writeSnapshot(list(simNodeClass(), nodePool(), ...objects));
  const { code, stdout, stderr } = await cli(
    'simulate',
    file,
    '--cloud',
    'sim',
    '-o',
    'json',
    ...flags,
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as SimulationJson;
}

describe('NodeOverlays in simulate', () => {
  it('a price overlay changes the chosen instance type, at the overlaid price', async () => {
    const cheap = overlay('cheap-s1x', { requirements: only(dearer), price: '0.001' });
    const before = await simulate([pendingPod()]);
    expect(before.nodeClaims.map((c) => c.instanceType)).toEqual([cheapest]);
    const after = await simulate([pendingPod(), cheap], '--node-overlay');
    expect(after.nodeClaims.map((c) => [c.instanceType, c.pricePerHour])).toEqual([
      [dearer, 0.001],
    ]);
    expect(after.notes).toContain('1 NodeOverlay(s) applied, highest weight first: cheap-s1x');
  });

  it('a percentage adjustment of every type keeps the choice and scales the price', async () => {
    const half = overlay('half', {
      requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }],
      priceAdjustment: '-50%',
    });
    const before = await simulate([pendingPod()]);
    const after = await simulate([pendingPod(), half], '--node-overlay');
    expect(after.nodeClaims[0]?.instanceType).toBe(cheapest);
    expect(after.nodeClaims[0]?.pricePerHour).toBeCloseTo(
      (before.nodeClaims[0]?.pricePerHour ?? 0) / 2,
      4,
    );
  });

  it('a capacity overlay makes a pod requesting an extended resource fit where it did not', async () => {
    const license = overlay('license', {
      requirements: only(dearer),
      capacity: { 'example.com/license': '2' },
    });
    const before = await simulate([pendingPod({ 'example.com/license': '1' })], '--node-overlay');
    expect(before.nodeClaims).toEqual([]);
    expect(before.podErrors).toHaveLength(1);
    const after = await simulate(
      [pendingPod({ 'example.com/license': '1' }), license],
      '--node-overlay',
    );
    expect(after.podErrors).toEqual([]);
    expect(after.nodeClaims.map((c) => c.instanceType)).toEqual([dearer]);
    expect(after.nodeClaims[0]?.allocatable['example.com/license']).toBe('2');
  });

  it('the higher weight wins; an equal-weight overlay on the same offerings is refused as a conflict', async () => {
    const low = overlay('low', { requirements: only(dearer), price: '0.002', weight: 1 });
    const high = overlay('high', { requirements: only(dearer), price: '0.001', weight: 50 });
    const rival = overlay('rival', { requirements: only(dearer), price: '0.0001', weight: 50 });
    const weighted = await simulate([pendingPod(), low, high], '--node-overlay');
    expect(weighted.nodeClaims.map((c) => [c.instanceType, c.pricePerHour])).toEqual([
      [dearer, 0.001],
    ]);
    // Equal weights: evaluated by name descending, so `rival` applies and `high` conflicts.
    const conflicting = await simulate([pendingPod(), high, rival], '--node-overlay');
    expect(conflicting.nodeClaims.map((c) => c.pricePerHour)).toEqual([0.0001]);
    expect(conflicting.notes).toContain(
      `NodeOverlay high not applied (ValidationSucceeded=False, Conflict): price conflicts with NodeOverlay rival (same weight 50) on nodepool default, instance type ${dearer}`,
    );
  });

  it('with the gate off (the default) overlays change nothing and a note says so', async () => {
    const cheap = overlay('cheap-s1x', { requirements: only(dearer), price: '0.001' });
    const off = await simulate([pendingPod(), cheap]);
    expect(off.nodeClaims.map((c) => c.instanceType)).toEqual([cheapest]);
    expect(off.notes).toContain(
      "1 NodeOverlay(s) not applied: the NodeOverlay feature gate is off (its default, as upstream's): --node-overlay applies them",
    );
  });
});

describe('an invalid NodeOverlay', () => {
  it('is refused by simulate with its field and rule, as the API server would (was: an internal error)', async () => {
    const bad = overlay('bad', { requirements: only(dearer), priceAdjustment: 'cheap' });
    const file = await writeSnapshot(list(simNodeClass(), nodePool(), pendingPod(), bad));
    for (const flags of [['--node-overlay'], []]) {
      const { code, stdout, stderr } = await cli('simulate', file, '--cloud', 'sim', ...flags);
      expect(stdout).toBe('');
      expect(stderr).toMatch(
        /^karpenter-ts: error: .*spec\.priceAdjustment.*does not match the pattern/,
      );
      expect(stderr).not.toMatch(/internal error/);
      expect(code).toBe(1);
    }
  });
});

describe('NodeOverlays in disrupt', () => {
  it('consolidation compares overlaid prices: a node an overlay made dear is replaced, only with the gate on', async () => {
    const dear = overlay('dear-c1x', { requirements: only(cheapest), price: '9' });
    const file = await writeSnapshot(
      list(simNodeClass(), nodePool(), machine('n1', cheapest), pods('web', 'n1', 1), dear),
    );
    const run = async (...flags: string[]) => {
      const { code, stdout, stderr } = await cli(
        'disrupt',
        file,
        '--now',
        NOW,
        '-o',
        'json',
        ...flags,
      );
      expect(stderr).toBe('');
      expect(code).toBe(0);
      return JSON.parse(stdout) as {
        commands: { decision: string; candidates: { name: string; pricePerHour: number }[] }[];
        ignored: { object: string; reason: string }[];
      };
    };
    const on = await run('--node-overlay');
    expect(
      on.commands.map((c) => [c.decision, c.candidates.map((x) => [x.name, x.pricePerHour])]),
    ).toEqual([['replace', [['n1', 9]]]]);
    const off = await run();
    expect(off.commands).toEqual([]);
    expect(off.ignored.find((i) => i.object === 'NodeOverlay/dear-c1x')?.reason).toMatch(
      /feature gate is off/,
    );
  });
});
