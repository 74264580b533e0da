/**
 * The NodeClaim `Consolidatable` condition: True once the
 * NodeClaim is Initialized and consolidateAfter has passed since the last pod event on its node
 * (or since initialization when there was none); removed under `consolidateAfter: Never`.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { isTrue, NodeClaimDisruption } from '../../src/index.js';
import {
  addNode,
  addWorkload,
  disruptionEnv,
  disruptionPool,
  settle,
  unitEnv,
  type UnitEnv,
} from './support.js';

async function reconcile(
  env: UnitEnv,
): Promise<{ consolidatable: boolean; requeueAfter?: number }> {
  const result = await new NodeClaimDisruption({
    client: env.client,
    cloudProvider: env.cloud,
    clock: env.clock,
  }).reconcile('a');
  const nc = (await env.client.get('NodeClaim', { name: 'a' })) as NodeClaim;
  return {
    consolidatable: isTrue(nc, NodeClaimConditions.Consolidatable),
    ...(result.requeueAfter !== undefined ? { requeueAfter: result.requeueAfter } : {}),
  };
}

async function podEventNow(env: UnitEnv): Promise<void> {
  const nc = (await env.client.get('NodeClaim', { name: 'a' })) as NodeClaim;
  nc.status = { ...nc.status, lastPodEventTime: new Date(env.clock.now()).toISOString() };
  await env.client.updateStatus('NodeClaim', nc);
}

function envWith(consolidateAfter: string): Promise<UnitEnv> {
  return unitEnv({ pools: [disruptionPool({ consolidateAfter })] });
}

describe('Consolidatable', () => {
  it('is not set before the NodeClaim is initialized', async () => {
    const env = await envWith('0s');
    await addNode(env, { name: 'a', initialized: false, consolidatable: false });
    expect((await reconcile(env)).consolidatable).toBe(false);
  });

  it('is set as soon as the NodeClaim is initialized with consolidateAfter 0s', async () => {
    const env = await envWith('0s');
    await addNode(env, { name: 'a', consolidatable: false });
    expect((await reconcile(env)).consolidatable).toBe(true);
  });

  it('waits consolidateAfter (10m) from initialization, and asks to come back when it is due', async () => {
    const env = await envWith('10m');
    await addNode(env, { name: 'a', consolidatable: false });
    env.clock.advance(9 * 60 + 59);
    expect(await reconcile(env)).toEqual({ consolidatable: false, requeueAfter: 1 });
    env.clock.advance(1);
    expect((await reconcile(env)).consolidatable).toBe(true);
  });

  it('counts consolidateAfter from the last pod event when there is one', async () => {
    const env = await envWith('10m');
    await addNode(env, { name: 'a', consolidatable: false });
    env.clock.advance(5 * 60);
    await podEventNow(env);
    env.clock.advance(5 * 60);
    expect((await reconcile(env)).consolidatable).toBe(false);
    env.clock.advance(5 * 60);
    expect((await reconcile(env)).consolidatable).toBe(true);
  });

  it('is removed by a later pod event and comes back consolidateAfter after it', async () => {
    const env = await envWith('10m');
    await addNode(env, { name: 'a', consolidatable: false });
    env.clock.advance(10 * 60);
    expect((await reconcile(env)).consolidatable).toBe(true);
    await podEventNow(env);
    expect((await reconcile(env)).consolidatable).toBe(false);
    env.clock.advance(10 * 60 - 1);
    expect((await reconcile(env)).consolidatable).toBe(false);
    env.clock.advance(1);
    expect((await reconcile(env)).consolidatable).toBe(true);
  });

  it('is removed while consolidateAfter is Never', async () => {
    const env = await envWith('Never');
    await addNode(env, { name: 'a', consolidatable: true });
    expect((await reconcile(env)).consolidatable).toBe(false);
  });
});

describe('Consolidatable in the running controllers', () => {
  it('goes away when a pod binds to the node and returns consolidateAfter later', async () => {
    const env = await disruptionEnv({
      pools: [disruptionPool({ consolidateAfter: '5m', consolidationPolicy: 'WhenEmpty' })],
    });
    addWorkload(env, 'web', 1, { cpu: '100m' });
    expect(await settle(env)).toBe(true);
    const [claim] = await env.client.list('NodeClaim');
    const name = claim?.metadata.name ?? '';
    const consolidatable = async () =>
      isTrue((await env.client.get('NodeClaim', { name })) as NodeClaim, 'Consolidatable');
    expect(await env.loop.runUntil(consolidatable, 400)).toBe(true);

    env.loop.replicaSets.scale('web', 2);
    expect(await env.loop.runUntil(async () => !(await consolidatable()), 30)).toBe(true);
    const boundAt = env.clock.now();
    expect(await env.loop.runUntil(consolidatable, 400)).toBe(true);
    expect(env.clock.now() - boundAt).toBeGreaterThanOrEqual(290 * 1000);
    expect((await env.client.list('NodeClaim')).map((c) => c.metadata.name)).toEqual([name]);
    env.loop.stop();
  });
});
