/**
 * `karpenter-ts disrupt`: one pass of the controllers' disruption over a cluster snapshot, each
 * node's verdict in the controllers' own words.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';
import {
  list,
  machine,
  nodePool,
  NOW,
  pdb,
  pods,
  simNodeClass,
  unmanagedNode,
  writeSnapshot,
} from './support/snapshot.js';

interface NodeJson {
  name: string;
  status: string;
  reason: string;
  reasons: { method?: string; reason: string }[];
}
interface CommandJson {
  method: string;
  reason: string;
  decision: string;
  candidates: { name: string; instanceType: string; pricePerHour: number; pods: number }[];
  replacements: {
    nodePool: string;
    instanceTypeOptions: string[];
    options: number;
    launch?: { instanceType: string; zone: string; capacityType: string; pricePerHour: number };
  }[];
  savingsPerHour: number;
}
interface ReportJson {
  now: string;
  method?: string;
  commands: CommandJson[];
  nodes: NodeJson[];
  budgets: { nodePool: string; reason: string; allowed: number | string; limitedBy?: string }[];
}

/** Runs `disrupt` at {@link NOW} over a List of the objects; returns the JSON report. */
async function disrupt(...objects: Parameters<typeof list>): Promise<ReportJson> {
  const file = await writeSnapshot(list(...objects));
  const { code, stdout, stderr } = await cli('disrupt', file, '--now', NOW, '-o', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as ReportJson;
}

/** The one-line verdict of node `name`. */
function verdict(report: ReportJson, name: string): string | undefined {
  return report.nodes.find((n) => n.name === name)?.reason;
}

const c4x = 'c-4x-amd64-linux';

describe('karpenter-ts disrupt: what a pass would do', () => {
  it('replaces two underused nodes with one cheaper node, naming the options, the launch and the savings', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool(),
      machine('a', c4x),
      machine('b', c4x),
      pods('web', 'a', 2),
      pods('api', 'b', 1, { owner: 'api-6f7d8' }),
    );
    expect(report.method).toBe('multi-node-consolidation');
    const [command] = report.commands;
    expect(command).toMatchObject({ decision: 'replace', reason: 'Underutilized' });
    expect(command!.candidates.map((c) => [c.name, c.instanceType, c.pods]).sort()).toEqual([
      ['a', c4x, 2],
      ['b', c4x, 1],
    ]);
    expect(command!.replacements).toHaveLength(1);
    expect(command!.replacements[0]!.instanceTypeOptions[0]).toBe('c-2x-amd64-linux');
    expect(command!.replacements[0]!.launch).toEqual({
      instanceType: 'c-2x-amd64-linux',
      zone: 'test-zone-a',
      capacityType: 'on-demand',
      pricePerHour: 0.054295,
    });
    // Two c-4x at 0.108590 each, one c-2x at 0.054295.
    expect(command!.savingsPerHour).toBeCloseTo(0.162885, 6);
    expect(verdict(report, 'a')).toBe(
      'command 1: replace (multi-node-consolidation, Underutilized)',
    );
  });

  it('deletes an empty node (emptiness) and says a node the pass did not get to was not looked at', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool(),
      machine('busy', c4x),
      machine('empty', c4x),
      pods('web', 'busy', 1),
    );
    expect(
      report.commands.map((c) => [c.method, c.decision, c.candidates.map((x) => x.name)]),
    ).toEqual([['emptiness', 'delete', ['empty']]]);
    expect(verdict(report, 'empty')).toBe('command 1: delete (emptiness, Empty)');
    expect(verdict(report, 'busy')).toBe(
      'not looked at: the pass stopped at the emptiness command (one method acts per pass)',
    );
  });

  it('replaces a node whose NodePool template changed (drift)', async () => {
    const before = nodePool();
    const after = nodePool({ labels: { team: 'checkout' } });
    const report = await disrupt(
      simNodeClass(),
      after,
      machine('a', c4x, { launchedFrom: before }),
      pods('web', 'a', 2),
    );
    expect(report.commands.map((c) => [c.method, c.reason, c.decision])).toEqual([
      ['drift', 'Drifted', 'replace'],
    ]);
    // Two pods of 500m need more than c-1x's 900m allocatable.
    expect(report.commands[0]!.replacements[0]!.launch?.instanceType).toBe('c-2x-amd64-linux');
  });

  it('a node inside its consolidateAfter: "consolidatable at" the time it will be', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool({ consolidateAfter: '10m' }),
      machine('a', c4x, { consolidatable: false, lastPodEventTime: '2026-12-01T09:55:00Z' }),
      pods('web', 'a', 2),
    );
    expect(report.commands).toEqual([]);
    expect(verdict(report, 'a')).toBe('consolidatable at 2026-12-01T10:05:00Z');
  });

  it('a pod with karpenter.sh/do-not-disrupt keeps its node out of every method', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool(),
      machine('a', c4x),
      pods('db', 'a', 1, {
        owner: 'StatefulSet:db',
        names: ['db-0'],
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      }),
    );
    expect(report.nodes.find((n) => n.name === 'a')).toMatchObject({
      status: 'not a candidate',
      reason: 'pod default/db-0 has karpenter.sh/do-not-disrupt',
    });
  });

  it("a PodDisruptionBudget that allows no eviction keeps its pods' node", async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool(),
      machine('a', c4x),
      pods('web', 'a', 2),
      pdb('web', 'web', 0),
    );
    expect(verdict(report, 'a')).toBe('pdb default/web prevents pod evictions');
  });

  it('a budget of 0 for Underutilized during its schedule names the budget, and the budgets table shows it', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool({
        budgets: [
          { nodes: '0', reasons: ['Underutilized'], schedule: '0 9 * * 1-5', duration: '8h' },
          { nodes: '100%' },
        ],
      }),
      machine('a', c4x),
      pods('web', 'a', 2),
    );
    expect(verdict(report, 'a')).toBe(
      'budget for Underutilized in nodepool default is 0 (nodes: 0, schedule "0 9 * * 1-5" for 8h)',
    );
    expect(report.budgets).toEqual([
      {
        nodePool: 'default',
        reason: 'Empty',
        allowed: 1,
        nodes: 1,
        disrupting: 0,
        limitedBy: 'nodes: 100%',
      },
      {
        nodePool: 'default',
        reason: 'Drifted',
        allowed: 1,
        nodes: 1,
        disrupting: 0,
        limitedBy: 'nodes: 100%',
      },
      {
        nodePool: 'default',
        reason: 'Underutilized',
        allowed: 0,
        nodes: 1,
        disrupting: 0,
        limitedBy: 'nodes: 0 (schedule "0 9 * * 1-5" for 8h)',
      },
    ]);
  });

  it('a WhenEmpty NodePool leaves a node with pods: "WhenEmpty and not empty"', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool({ consolidationPolicy: 'WhenEmpty' }),
      machine('a', c4x),
      pods('web', 'a', 2),
    );
    expect(verdict(report, 'a')).toBe('WhenEmpty and not empty');
  });

  it('the cheapest type already: "can\'t replace with a cheaper node"', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool(),
      machine('a', 'c-1x-amd64-linux'),
      pods('web', 'a', 1),
    );
    expect(verdict(report, 'a')).toBe("can't replace with a cheaper node");
  });

  it('pods that only fit two of the types the NodePool now allows: "can\'t remove without creating 2 nodes" (drift paused by its budget)', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool({
        budgets: [{ nodes: '0', reasons: ['Drifted'] }, { nodes: '100%' }],
        requirements: [
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c-2x-amd64-linux'] },
        ],
      }),
      machine('a', 'c-8x-amd64-linux'),
      pods('web', 'a', 2, { cpu: '1500m' }),
    );
    expect(report.nodes.find((n) => n.name === 'a')!.reasons).toEqual([
      { method: 'emptiness', reason: 'not empty' },
      { method: 'drift', reason: 'budget for Drifted in nodepool default is 0 (nodes: 0)' },
      { method: 'single-node-consolidation', reason: "can't remove without creating 2 nodes" },
    ]);
    expect(verdict(report, 'a')).toBe(
      "budget for Drifted in nodepool default is 0 (nodes: 0); can't remove without creating 2 nodes",
    );
  });

  it('a Node without a NodeClaim is unmanaged capacity: never disrupted, and pods may move onto it', async () => {
    const report = await disrupt(
      simNodeClass(),
      nodePool(),
      unmanagedNode('system-1'),
      machine('a', c4x),
      pods('web', 'a', 2),
    );
    expect(verdict(report, 'system-1')).toBe(
      'unmanaged: no NodeClaim (capacity Karpenter does not manage)',
    );
    // The pods fit on the unmanaged node: the managed one is deleted, not replaced.
    expect(report.commands.map((c) => [c.decision, c.candidates.map((x) => x.name)])).toEqual([
      ['delete', ['a']],
    ]);
  });
});

describe('karpenter-ts disrupt: output and exit codes', () => {
  const cluster = () =>
    list(simNodeClass(), nodePool(), machine('a', c4x), machine('b', c4x), pods('web', 'a', 1));

  it('prints the commands, every node, the budgets and "Would act" as a table; exit 0', async () => {
    const file = await writeSnapshot(cluster());
    const { code, stdout, stderr } = await cli('disrupt', file, '--now', NOW);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Disruption pass at 2026-12-01T10:00:00Z on sim: 2 node(s), 2 managed, 0 pending pod(s)',
    );
    expect(stdout).toContain('Commands (emptiness):');
    expect(stdout).toMatch(
      / b +default +c-4x-amd64-linux +test-zone-a +on-demand +\$0\.1086 +0 +command 1: delete \(emptiness, Empty\)/,
    );
    expect(stdout).toMatch(/ default +2 +2 \(nodes: 100%\) +2 \(nodes: 100%\) +2 \(nodes: 100%\)/);
    expect(stdout).toContain('Would act: 1 command(s) (exit 1 with --fail-on-command).');
  });

  it('--fail-on-command exits 1 when the pass would act, 0 when it would not', async () => {
    const acting = await writeSnapshot(cluster());
    expect((await cli('disrupt', acting, '--now', NOW, '--fail-on-command')).code).toBe(1);
    const quiet = await writeSnapshot(
      list(simNodeClass(), nodePool(), machine('a', 'c-1x-amd64-linux'), pods('web', 'a', 1)),
    );
    const { code, stdout } = await cli('disrupt', quiet, '--now', NOW, '--fail-on-command');
    expect(code).toBe(0);
    expect(stdout).toContain('Nothing to do.');
  });

  it('-o yaml prints the same report as -o json', async () => {
    const file = await writeSnapshot(cluster());
    const json = JSON.parse((await cli('disrupt', file, '--now', NOW, '-o', 'json')).stdout);
    const { parse } = await import('yaml');
    expect(parse((await cli('disrupt', file, '--now', NOW, '-o', 'yaml')).stdout)).toEqual(json);
  });

  it('--now that is not RFC 3339 is a usage error naming the format (exit 2)', async () => {
    const file = await writeSnapshot(cluster());
    for (const now of [
      'tomorrow',
      '2026-12-01',
      '2026-12-01 10:00:00Z',
      '2026-12-01T10:00Z',
      // An impossible day (Date.parse would make it March 2) and a time before 1970.
      '2026-02-30T10:00:00Z',
      '1900-01-01T00:00:00Z',
    ]) {
      const { code, stderr } = await cli('disrupt', file, '--now', now);
      expect(code).toBe(2);
      expect(stderr).toBe(
        `karpenter-ts: error: --now: expected an RFC 3339 time from 1970 on such as 2026-12-01T10:00:00Z (a real date, T, time with seconds, then Z or an offset such as +01:00), got ${JSON.stringify(now)}\n`,
      );
    }
  });
});

describe('karpenter-ts disrupt: the example the README runs', () => {
  it('examples/snapshots/sim-cluster.yaml: two underused nodes go, the do-not-disrupt one and the unmanaged one stay', async () => {
    const { code, stdout } = await cli(
      'disrupt',
      '../../examples/snapshots/sim-cluster.yaml',
      '--now',
      NOW,
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ReportJson;
    expect(report.nodes.map((n) => [n.name, n.reason])).toEqual([
      ['default-7xk2p', 'command 1: delete (multi-node-consolidation, Underutilized)'],
      ['default-m9q4w', 'command 1: delete (multi-node-consolidation, Underutilized)'],
      ['default-t5v8n', 'pod default/db-0 has karpenter.sh/do-not-disrupt'],
      ['system-1', 'unmanaged: no NodeClaim (capacity Karpenter does not manage)'],
    ]);
  });
});
