/**
 * `karpenter-ts diff`: the cluster run to a stable state under its NodePools and under proposed
 * ones, compared (issue 12, item 4).
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cli } from './support/cli.js';
import { writeManifests } from './support/manifests.js';
import {
  list,
  machine,
  nodePool,
  NOW,
  pods,
  simNodeClass,
  writeSnapshot,
} from './support/snapshot.js';

interface DiffJson {
  proposal: { replaced: string[]; added: string[] };
  current: {
    nodes: number;
    pricePerHour: number;
    instanceTypes: { name: string; count: number }[];
  };
  proposed: {
    nodes: number;
    pricePerHour: number;
    instanceTypes: { name: string; count: number }[];
    pendingPods: string[];
  };
  change: {
    nodes: number;
    pricePerHour: number;
    pendingPods: number;
    driftReplaced: string[];
    newlyPending: string[];
  };
}

const narrower = (maxCpu: string) =>
  stringify(
    nodePool({
      requirements: [
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'karpenter.kwok.sh/instance-cpu', operator: 'Lt', values: [maxCpu] },
      ],
    }),
  );

describe('karpenter-ts diff', () => {
  // 3 one-core pods on a c-4x: the cheapest node for them; stable as it is.
  const cluster = () =>
    writeSnapshot(
      list(
        simNodeClass(),
        nodePool(),
        machine('a', 'c-4x-amd64-linux'),
        pods('web', 'a', 3, { cpu: '1' }),
      ),
    );

  it('a narrower NodePool (nodes of at most 2 cores): drift replaces the node by three smaller ones, and the cost goes up', async () => {
    const file = await cluster();
    const proposal = await writeManifests(narrower('4'));
    const { code, stdout, stderr } = await cli(
      'diff',
      file,
      '--nodepools',
      proposal,
      '--now',
      NOW,
      '-o',
      'json',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as DiffJson;
    expect(r.proposal).toEqual({ replaced: ['NodePool/default'], added: [] });
    expect(r.current).toMatchObject({
      nodes: 1,
      instanceTypes: [{ name: 'c-4x-amd64-linux', count: 1 }],
    });
    expect(r.proposed).toMatchObject({
      nodes: 3,
      instanceTypes: [{ name: 'c-2x-amd64-linux', count: 3 }],
      pendingPods: [],
    });
    expect(r.change).toEqual({
      nodes: 2,
      pricePerHour: 0.054295,
      pendingPods: 0,
      driftReplaced: ['a'],
      newlyPending: [],
    });
  });

  it('a NodePool too narrow for a pod: the pod stays pending under the proposal, and its node is not replaced', async () => {
    const file = await cluster();
    const proposal = await writeManifests(narrower('2'));
    const { stdout } = await cli('diff', file, '--nodepools', proposal, '--now', NOW, '-o', 'json');
    const r = JSON.parse(stdout) as DiffJson;
    // One-core nodes have 900m allocatable: a 1-cpu pod fits nowhere, so drift cannot move them.
    expect(r.change.driftReplaced).toEqual([]);
    expect(r.proposed.nodes).toBe(1);
  });

  it('prints both sides, the change and the replaced nodes as a table', async () => {
    const file = await cluster();
    const proposal = await writeManifests(narrower('4'));
    const { code, stdout } = await cli('diff', file, '--nodepools', proposal, '--now', NOW);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Diff at 2026-12-01T10:00:00Z on sim, each side run until stable: the proposal replaces NodePool/default',
    );
    expect(stdout).toMatch(/ nodes +1 +3 +\+2/);
    expect(stdout).toMatch(/ USD\/hour +\$0\.1086 +\$0\.1629 +\+\$0\.0543/);
    expect(stdout).toContain('Drift replaces under the proposal: a');
  });

  it('says what became of a proposed NodePool the cluster cloud ignores (one of another cloud), in the table and in JSON', async () => {
    const file = await cluster();
    const azurePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: azure-pool }
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.azure.com, kind: AKSNodeClass, name: default }
      requirements: []
`;
    const proposal = await writeManifests(azurePool);
    const table = await cli('diff', file, '--nodepools', proposal, '--now', NOW);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(
      'note (proposal): NodePool "azure-pool" is ignored: it references AKSNodeClass, not SimNodeClass',
    );
    const json = await cli('diff', file, '--nodepools', proposal, '--now', NOW, '-o', 'json');
    expect((JSON.parse(json.stdout) as { proposalNotes: string[] }).proposalNotes).toEqual([
      'NodePool "azure-pool" is ignored: it references AKSNodeClass, not SimNodeClass',
    ]);
  });

  it('names the first 5 objects of a large proposal in its heading and counts the rest', async () => {
    const file = await cluster();
    const pools = Array.from({ length: 8 }, (_, i) =>
      narrower('4').replace('name: default', `name: p${i}`),
    );
    const proposal = await writeManifests(...pools);
    const { code, stdout } = await cli('diff', file, '--nodepools', proposal, '--now', NOW);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(
      /the proposal adds NodePool\/p0, adds NodePool\/p1, adds NodePool\/p2, adds NodePool\/p3, adds NodePool\/p4, and 3 more$/,
    );
  });

  it('refuses a proposal holding anything but NodePools and NodeClasses, naming the object and file (exit 1), and a missing --nodepools (exit 2)', async () => {
    const file = await cluster();
    const proposal = await writeManifests(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n',
    );
    const bad = await cli('diff', file, '--nodepools', proposal, '--now', NOW);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      `karpenter-ts: error: ${proposal}:1 kind: ConfigMap/x: --nodepools files hold NodePools, NodeOverlays and NodeClasses (AKSNodeClass, EC2NodeClass, SimNodeClass) only\n`,
    );
    const missing = await cli('diff', file, '--now', NOW);
    expect(missing.code).toBe(2);
  });
});

describe('karpenter-ts diff: the example the README runs', () => {
  it('examples/snapshots: the narrower NodePool drifts the two underused nodes; the do-not-disrupt one stays', async () => {
    const { code, stdout } = await cli(
      'diff',
      '../../examples/snapshots/sim-cluster.yaml',
      '--nodepools',
      '../../examples/snapshots/narrower-nodepool.yaml',
      '--now',
      NOW,
      '-o',
      'json',
    );
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as DiffJson;
    expect(r.change.driftReplaced).toEqual(['default-7xk2p', 'default-m9q4w']);
    expect(r.proposed.pendingPods).toEqual([]);
  });
});
