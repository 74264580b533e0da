/**
 * A cluster snapshot without NodePools (kubectl get ... without `nodepools`, or a cluster that
 * has none): Karpenter launches only from a cluster's NodePools, so none is assumed (not the
 * CLI's default one). It says so plainly and provisions and replaces nothing, unless NodePools
 * are passed as further files. Plain manifests without NodePools keep the cloud's default.
 */
import { describe, expect, it } from 'vitest';
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

const message =
  "the snapshot holds no NodePool, so Karpenter would provision and replace nothing: no NodePool is assumed (add the cluster's NodePools, kubectl get nodepools -o yaml, or NodePool files as further paths)";

/** A cluster: one machine of the default pool with two pods, and a pod too big for it pending. */
async function snapshotWithoutPools(): Promise<string> {
  return writeSnapshot(
    list(
      simNodeClass(),
      machine('n1', 'c-4x-amd64-linux'),
      pods('web', 'n1', 2),
      pods('big', undefined, 1, { names: ['big-pending'], cpu: '8' }),
    ),
  );
}

async function json(...argv: string[]): Promise<unknown> {
  const { code, stdout, stderr } = await cli(...argv, '-o', 'json');
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as unknown;
}

describe('a cluster snapshot without NodePools', () => {
  it('disrupt says so and disrupts nothing; with a NodePool file added, the pool is used', async () => {
    const file = await snapshotWithoutPools();
    type Report = { notes: string[]; nodes: { name: string; reason: string }[] };
    const none = (await json('disrupt', file, '--cloud', 'sim', '--now', NOW)) as Report;
    expect(none.notes).toContain(message);
    expect(none.nodes.find((n) => n.name === 'n1')?.reason).toBe(
      'nodepool default not found or not ready',
    );

    const pools = await writeSnapshot(list(nodePool()), 'pools.yaml');
    const withPool = (await json('disrupt', file, pools, '--cloud', 'sim', '--now', NOW)) as Report;
    expect(withPool.notes).not.toContain(message);
    expect(withPool.nodes.find((n) => n.name === 'n1')?.reason).not.toMatch(/not found/);
  });

  it('simulate launches from the NodePools passed beside the snapshot', async () => {
    const file = await snapshotWithoutPools();
    const pools = await writeSnapshot(list(nodePool()), 'pools.yaml');
    const sim = (await json('simulate', file, pools, '--cloud', 'sim')) as {
      nodeClaims: { instanceType: string }[];
      podErrors: unknown[];
    };
    expect(sim.podErrors).toEqual([]);
    expect(sim.nodeClaims.map((c) => c.instanceType)).toEqual(['c-16x-amd64-linux']);
  });

  it('simulate on a snapshot with NodeClaims and no NodePool launches nothing and says why', async () => {
    const file = await snapshotWithoutPools();
    const sim = (await json('simulate', file, '--cloud', 'sim')) as {
      notes: string[];
      nodeClaims: unknown[];
      podErrors: { pod: string }[];
    };
    expect(sim.notes).toContain(message);
    expect(sim.nodeClaims).toEqual([]);
    expect(sim.podErrors.map((e) => e.pod)).toEqual(['default/big-pending']);
  });

  it('plain manifests without a NodePool still use the cloud default NodePool', async () => {
    const file = await writeManifests(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: app, resources: {requests: {cpu: 500m}}}]
`);
    const sim = (await json('simulate', file, '--cloud', 'sim')) as {
      notes: string[];
      nodeClaims: unknown[];
    };
    expect(sim.nodeClaims).toHaveLength(1);
    expect(sim.notes.some((n) => n.startsWith('no NodePool in the input: using the'))).toBe(true);
  });
});

describe('disrupt --until-stable on a snapshot with a pending pod', () => {
  it('provisions the pod before it calls the cluster stable', async () => {
    const file = await snapshotWithoutPools();
    const pools = await writeSnapshot(list(nodePool()), 'pools.yaml');
    const report = (await json(
      'disrupt',
      file,
      pools,
      '--cloud',
      'sim',
      '--now',
      NOW,
      '--until-stable',
    )) as {
      stable: boolean;
      final: { pendingPods: number; nodes: { instanceType: string }[] };
    };
    expect(report.stable).toBe(true);
    expect(report.final.pendingPods).toBe(0);
    // The big pod's node launched (consolidation may then fold n1's pods onto it).
    expect(report.final.nodes.map((n) => n.instanceType)).toContain('c-16x-amd64-linux');
  });
});
