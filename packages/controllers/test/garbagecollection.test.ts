import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { GarbageCollection } from '../src/index.js';
import { apply, provision, provisionNodes, readyNodePool, testEnv } from './helpers.js';

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
