/**
 * `karpenter-ts disrupt --until-stable`: the controllers carry out each command on the
 * in-memory cluster (replacements launched, pods evicted, recreated and bound again) and run
 * passes until one finds nothing to do.
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

interface StableJson {
  start: string;
  end: string;
  stable: boolean;
  commands: {
    method: string;
    decision: string;
    candidates: { name: string }[];
    launched: { instanceType: string }[];
  }[];
  costBefore: number;
  costAfter: number;
  final: {
    commands: unknown[];
    pendingPods: number;
    nodes: { name: string; instanceType: string; pods: number; status: string }[];
  };
}

/** `disrupt FILE --now NOW --until-stable -o json`: it exits 0; its report. */
async function untilStable(file: string): Promise<StableJson & { commands: { at: string }[] }> {
  const { code, stdout } = await cli('disrupt', file, '--now', NOW, '--until-stable', '-o', 'json');
  expect(code).toBe(0);
  return JSON.parse(stdout) as StableJson & { commands: { at: string }[] };
}

describe('karpenter-ts disrupt --until-stable', () => {
  it('replaces two underused nodes by one cheaper node, the pods move there, and the next passes find nothing', async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool(),
        machine('a', 'c-4x-amd64-linux'),
        machine('b', 'c-4x-amd64-linux'),
        pods('web', 'a', 2),
        pods('api', 'b', 1, { owner: 'api-6f7d8' }),
      ),
    );
    const { code, stdout, stderr } = await cli(
      'disrupt',
      file,
      '--now',
      NOW,
      '--until-stable',
      '-o',
      'json',
      '--solver',
      'ts',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as StableJson;
    expect(r.stable).toBe(true);
    expect(r.start).toBe(NOW);
    expect(
      r.commands.map((c) => [
        c.method,
        c.decision,
        c.candidates.map((x) => x.name).sort(),
        c.launched.map((l) => l.instanceType),
      ]),
    ).toEqual([['multi-node-consolidation', 'replace', ['a', 'b'], ['c-2x-amd64-linux']]]);
    expect(r.costBefore).toBeCloseTo(0.21718, 5);
    expect(r.costAfter).toBeCloseTo(0.054295, 5);
    expect(r.final.commands).toEqual([]);
    expect(r.final.pendingPods).toBe(0);
    expect(r.final.nodes.map((n) => [n.instanceType, n.pods])).toEqual([['c-2x-amd64-linux', 3]]);
  });

  it("waits out a node's consolidateAfter: the node consolidates once it is over", async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool({ consolidateAfter: '10m' }),
        machine('a', 'c-4x-amd64-linux', {
          consolidatable: false,
          lastPodEventTime: '2026-12-01T09:55:00Z',
        }),
        pods('web', 'a', 1),
      ),
    );
    const r = await untilStable(file);
    expect(r.stable).toBe(true);
    expect(
      r.commands.map((c) => [
        c.method,
        c.candidates.map((x) => x.name),
        c.launched.map((l) => l.instanceType),
      ]),
    ).toEqual([['single-node-consolidation', ['a'], ['c-1x-amd64-linux']]]);
    // consolidatable at 10:05, then the next pass, then 15 s of validation.
    expect(r.commands[0]!.at >= '2026-12-01T10:05:15Z').toBe(true);
    expect(r.commands[0]!.at < '2026-12-01T10:06:00Z').toBe(true);
  });

  it('waits out a budget window of 0 (a freeze until 10:05): the node consolidates once it lifts', async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool({
          budgets: [{ nodes: '0', schedule: '0 9 * * 1-5', duration: '1h5m' }, { nodes: '100%' }],
        }),
        machine('a', 'c-4x-amd64-linux'),
        pods('web', 'a', 1),
      ),
    );
    const r = await untilStable(file);
    expect(r.stable).toBe(true);
    expect(r.commands.map((c) => [c.method, c.candidates.map((x) => x.name)])).toEqual([
      ['single-node-consolidation', ['a']],
    ]);
    expect(r.commands[0]!.at >= '2026-12-01T10:05:15Z').toBe(true);
    expect(r.commands[0]!.at < '2026-12-01T10:06:00Z').toBe(true);
  });

  it("is not stable when a node's consolidateAfter ends only after the 2 h limit", async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool({ consolidateAfter: '5h' }),
        machine('a', 'c-4x-amd64-linux', {
          consolidatable: false,
          lastPodEventTime: '2026-12-01T09:55:00Z',
        }),
        pods('web', 'a', 1),
      ),
    );
    const r = await untilStable(file);
    expect([r.stable, r.commands.length]).toEqual([false, 0]);
    expect(r.end >= '2026-12-01T12:00:00Z').toBe(true);
    const text = await cli('disrupt', file, '--now', NOW, '--until-stable');
    expect(text.stdout).toContain('until the 2 h limit, not stable');
    expect(text.stdout).not.toContain('already stable');
  });

  it('is not stable when a budget freeze active now ends only after the 2 h limit', async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool({
          budgets: [{ nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' }, { nodes: '100%' }],
        }),
        machine('a', 'c-4x-amd64-linux'),
        pods('web', 'a', 1),
      ),
    );
    const r = await untilStable(file);
    expect([r.stable, r.commands.length]).toEqual([false, 0]);
  });

  it('with --fail-on-command, exits 1 when it acted; the table lists each command as it started', async () => {
    const file = await writeSnapshot(
      list(
        simNodeClass(),
        nodePool(),
        machine('a', 'c-4x-amd64-linux'),
        machine('b', 'c-4x-amd64-linux'),
        pods('web', 'a', 1),
      ),
    );
    const { code, stdout } = await cli(
      'disrupt',
      file,
      '--now',
      NOW,
      '--until-stable',
      '--fail-on-command',
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^Disruption from 2026-12-01T10:00:00Z until stable at 2026-12-01T10:\d\d:\d\dZ: \d command\(s\), \$0\.2172 → \$0\.\d{4} per hour/,
    );
    expect(stdout).toMatch(
      / 1 +2026-12-01T10:00:\d\dZ +delete \(emptiness, Empty\) +b \(c-4x-amd64-linux\)/,
    );
  });
});
