import type { NodeClaim } from '@karpenter-ts/api';
import { SimCloudProvider, fakeInstanceTypes } from '@karpenter-ts/cloudprovider';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { GarbageCollection } from '../src/index.js';
import {
  apply,
  provision,
  provisionNodes,
  readyNodePool,
  testEnv,
  TestNodeClass,
  type TestEnv,
} from './helpers.js';

/** Launches a machine named `stray` that no NodeClaim owns; returns its provider ID. */
async function strayInstance(env: TestEnv, cloud = env.cloud): Promise<string> {
  await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
  const [nc] = await provision(env);
  const launched = await cloud.create({ ...nc!, metadata: { ...nc!.metadata, name: 'stray' } });
  return launched.status?.providerID ?? '';
}

/** A garbage collection as a freshly started controller builds it (nothing remembered). */
function restartedGc(env: TestEnv, cloudProvider = env.cloud): GarbageCollection {
  return new GarbageCollection({ client: env.client, cloudProvider, clock: env.clock });
}

/** The sim cloud as a provider that reports no creation time for its instances. */
class NoCreationTimes extends SimCloudProvider {
  override async list(): Promise<NodeClaim[]> {
    const instances = await super.list();
    for (const i of instances) delete i.metadata.creationTimestamp;
    return instances;
  }
}

describe('Garbage collection', () => {
  it('garbage collects a machine that has no node claim', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [nc] = await provision(env);
    await env.cloud.create({ ...nc!, metadata: { ...nc!.metadata, name: 'stray' } });
    const stray = env.cloud.instances()[0]?.providerID;
    expect(stray).toMatch(/stray$/);
    const first = await env.gc.reconcile();
    expect(first.instancesDeleted).toEqual([]);
    expect(first.requeueAfter).toBe(30);
    env.clock.advance(30);
    const second = await env.gc.reconcile();
    expect(second.instancesDeleted).toEqual([stray]);
    expect(env.cloud.instances()).toHaveLength(0);
  });

  it('collects an orphan instance older than the grace period right after a restart', async () => {
    const env = await testEnv();
    const stray = await strayInstance(env);
    // Restarted every 25 s: each controller sees the orphan for the first time.
    env.clock.advance(25);
    const first = await restartedGc(env).reconcile();
    expect(first.instancesDeleted).toEqual([]);
    expect(first.requeueAfter).toBe(5); // when the orphan turns 30 s old
    env.clock.advance(25);
    const second = await restartedGc(env).reconcile();
    expect(second.instancesDeleted).toEqual([stray]);
    expect(env.cloud.instances()).toHaveLength(0);
  });

  it('does not collect a young orphan instance right after a restart', async () => {
    const env = await testEnv();
    await strayInstance(env);
    env.clock.advance(10);
    const result = await restartedGc(env).reconcile();
    expect(result.instancesDeleted).toEqual([]);
    expect(env.cloud.instances()).toHaveLength(1);
    expect(result.requeueAfter).toBe(20);
  });

  it('measures the grace from first sight for an instance whose provider reports no creation time', async () => {
    const env = await testEnv();
    const cloud = new NoCreationTimes({
      instanceTypes: fakeInstanceTypes(20),
      clock: env.clock,
      nodeClasses: [TestNodeClass],
    });
    const stray = await strayInstance(env, cloud);
    env.clock.advance(300);
    const gc = restartedGc(env, cloud);
    const first = await gc.reconcile();
    expect(first.instancesDeleted).toEqual([]);
    expect(first.requeueAfter).toBe(30);
    env.clock.advance(30);
    expect((await gc.reconcile()).instancesDeleted).toEqual([stray]);
  });

  it('does not collect the instance of a node claim whose launch is still being recorded', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [nc] = await provision(env);
    await env.cloud.create(nc!); // launched; the NodeClaim has no provider ID yet
    env.clock.advance(300);
    await env.gc.reconcile();
    env.clock.advance(300);
    expect((await env.gc.reconcile()).instancesDeleted).toEqual([]);
    expect(env.cloud.instances()).toHaveLength(1);
  });

  it('deletes a registered node claim whose instance is gone and whose node is not Ready', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [node] = await provisionNodes(env);
    const [nc] = await env.client.list('NodeClaim');
    await env.cloud.delete(nc!);
    // Still Ready: kept (the cloud list may lag).
    expect((await env.gc.reconcile()).nodeClaimsDeleted).toEqual([]);
    node!.status!.conditions = [{ type: 'Ready', status: 'Unknown' }];
    await env.client.updateStatus('Node', node!);
    expect((await env.gc.reconcile()).nodeClaimsDeleted).toEqual([nc?.metadata.name]);
    expect(
      (await env.client.get('NodeClaim', { name: nc?.metadata.name ?? '' }))?.metadata
        .deletionTimestamp,
    ).toBeDefined();
  });

  it('with collectOrphanInstances off, leaves an orphan instance past the grace to the provider and still deletes a NodeClaim whose instance is gone', async () => {
    const env = await testEnv();
    const gc = new GarbageCollection({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
      collectOrphanInstances: false,
    });
    expect(gc.collectsOrphanInstances).toBe(false);
    expect(env.gc.collectsOrphanInstances).toBe(true); // the default, as the first test collects
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [node] = await provisionNodes(env);
    const [nc] = await env.client.list('NodeClaim');
    await env.cloud.create({ ...nc!, metadata: { ...nc!.metadata, name: 'stray' } });
    const stray = env.cloud.instances().find((i) => i.providerID.endsWith('stray'))?.providerID;
    expect(stray).toBeDefined();
    await env.cloud.delete(nc!);
    node!.status!.conditions = [{ type: 'Ready', status: 'False' }];
    await env.client.updateStatus('Node', node!);

    const first = await gc.reconcile();
    env.clock.advance(600);
    const second = await gc.reconcile();
    expect([...first.instancesDeleted, ...second.instancesDeleted]).toEqual([]);
    expect(env.cloud.instances().map((i) => i.providerID)).toEqual([stray]);
    expect(first.nodeClaimsDeleted).toEqual([nc?.metadata.name]);
    // Nothing waits on a grace period: the next pass is the regular 2 minutes.
    expect(second.requeueAfter).toBe(120);
  });

  it('runs every 2 minutes when nothing is pending', async () => {
    const env = await testEnv();
    expect((await env.gc.reconcile()).requeueAfter).toBe(120);
  });
});
