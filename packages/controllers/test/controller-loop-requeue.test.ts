import type { Pod } from '@karpenter-ts/api';
import { fakeInstanceTypes, SimCloudProvider } from '@karpenter-ts/cloudprovider';
import { unschedulablePods } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it, vi } from 'vitest';
import { ControllerLoop, ManualClock, MemoryKubeClient } from '../src/index.js';
import { nodeClass, readyNodePool, TestNodeClass } from './helpers.js';

/** A loop over one NodePool of small types, with `pods` pending, and a count of its passes. */
async function loopWith(pods: Pod[]) {
  const clock = new ManualClock();
  const client = new MemoryKubeClient({ clock });
  const cloud = new SimCloudProvider({
    instanceTypes: fakeInstanceTypes(5),
    clock,
    nodeClasses: [TestNodeClass],
  });
  await client.create('NodePool', readyNodePool());
  await client.create('NodeClass', nodeClass());
  for (const p of pods) await client.create('Pod', p);
  const loop = new ControllerLoop({
    client,
    cloudProvider: cloud,
    clock,
    provisioner: { solver: 'ts' },
  });
  const passes = vi.spyOn(loop.provisioner, 'provision');
  await loop.start();
  return { client, clock, loop, passes };
}

/** Pods no instance type of {@link loopWith}'s catalog can hold (10,000 cores each). */
const tooLarge = (n: number) =>
  unschedulablePods(n, { labels: { app: 'huge' }, requests: { cpu: '10000' } });

describe('provisioning triggers in the controller loop', () => {
  it('re-solve a pod no pass can place every 10 s while it stays provisionable (upstream pod controller), not every tick', async () => {
    const { loop, passes } = await loopWith(tooLarge(3));
    for (let t = 0; t < 40; t++) await loop.step();
    loop.stop();
    // First pass after the 1 s batch window, then one per 10 s requeue: 4 in 40 s (each tick: 20).
    expect(passes.mock.calls.length).toBeGreaterThanOrEqual(4);
    expect(passes.mock.calls.length).toBeLessThanOrEqual(5);
  });

  it('trigger at once for a pod created or changed meanwhile', async () => {
    const { client, loop, passes } = await loopWith(tooLarge(1));
    for (let t = 0; t < 4; t++) await loop.step();
    const before = passes.mock.calls.length;
    const [pod] = await client.list('Pod');
    await client.update('Pod', {
      ...pod!,
      metadata: { ...pod!.metadata, labels: { ...pod!.metadata?.labels, tier: 'batch' } },
    });
    for (let t = 0; t < 3; t++) await loop.step();
    expect(passes.mock.calls.length).toBe(before + 1);
    for (const p of tooLarge(1).map((p) => ({
      ...p,
      metadata: { ...p.metadata, name: 'late', uid: 'late' },
    })))
      await client.create('Pod', p);
    for (let t = 0; t < 3; t++) await loop.step();
    loop.stop();
    expect(passes.mock.calls.length).toBe(before + 2);
  });
});

describe('the NodeClaim lifecycle in the controller loop', () => {
  it('runs for a settled NodeClaim only when it or its Node changes, not every tick', async () => {
    const small = unschedulablePods(1, { labels: { app: 'small' }, requests: { cpu: '100m' } });
    const { client, loop } = await loopWith(small);
    const bound = async () => (await client.list('Pod')).every((p) => p.spec?.nodeName);
    expect(await loop.runUntil(bound, 120)).toBe(true);
    for (let t = 0; t < 5; t++) await loop.step();
    const lifecycle = vi.spyOn(loop.lifecycle, 'reconcile');
    for (let t = 0; t < 30; t++) await loop.step();
    expect(lifecycle).not.toHaveBeenCalled();

    const [node] = await client.list('Node');
    await client.update('Node', {
      ...node!,
      metadata: { ...node!.metadata, labels: { ...node!.metadata?.labels, team: 'a' } },
    });
    await loop.step();
    loop.stop();
    expect(lifecycle).toHaveBeenCalledTimes(1);
  });
});
