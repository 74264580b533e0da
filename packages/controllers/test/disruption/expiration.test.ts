/**
 * Expiration: a NodeClaim older than its expireAfter is deleted,
 * forcefully: no budget, PDB pre-check or do-not-disrupt stops it. `Never` never expires.
 */
import { Annotations } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { Expiration } from '../../src/index.js';
import { pdb } from '../helpers.js';
import {
  addNode,
  addWorkload,
  bindPods,
  disruptionEnv,
  disruptionPool,
  eventsFor,
  settle,
  unitEnv,
  type UnitEnv,
} from './support.js';

function expiration(env: UnitEnv): Expiration {
  return new Expiration({ client: env.client, clock: env.clock });
}

async function deleting(env: UnitEnv, name: string): Promise<boolean> {
  return (await env.client.get('NodeClaim', { name }))?.metadata.deletionTimestamp !== undefined;
}

describe('expiration', () => {
  it('leaves a NodeClaim alone before expireAfter, asking to come back when it expires', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', expireAfter: '1h' });
    env.clock.advance(3599);
    const result = await expiration(env).reconcile('a');
    expect(await deleting(env, 'a')).toBe(false);
    expect(result.requeueAfter).toBe(1);
  });

  it('deletes the NodeClaim once it is expireAfter old, with a Disrupted event', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', expireAfter: '1h' });
    env.clock.advance(3600);
    await expiration(env).reconcile('a');
    expect(await deleting(env, 'a')).toBe(true);
    expect(eventsFor(env, 'a', 'Disrupted')[0]?.message).toMatch(/Expired/);
  });

  it('deletes it although the budgets allow no disruption and every kind of do-not-disrupt and PDB would block a voluntary one', async () => {
    const env = await unitEnv({ pools: [disruptionPool({ budgets: [{ nodes: '0' }] })] });
    await addNode(env, {
      name: 'a',
      expireAfter: '1h',
      nodeAnnotations: { [Annotations.DoNotDisrupt]: 'true' },
    });
    await bindPods(env, 'a', 1, {
      labels: { app: 'web' },
      annotations: { [Annotations.DoNotDisrupt]: 'true' },
    });
    await env.client.create(
      'PodDisruptionBudget',
      pdb('web', { app: 'web' }, { maxUnavailable: 0 }),
    );
    env.clock.advance(3600);
    await expiration(env).reconcile('a');
    expect(await deleting(env, 'a')).toBe(true);
  });

  it('never deletes a NodeClaim with expireAfter: Never', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', expireAfter: 'Never' });
    env.clock.advance(10 * 365 * 24 * 3600);
    const result = await expiration(env).reconcile('a');
    expect(await deleting(env, 'a')).toBe(false);
    expect(result.requeueAfter).toBeUndefined();
  });

  it('never deletes a NodeClaim without expireAfter', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    env.clock.advance(10 * 365 * 24 * 3600);
    await expiration(env).reconcile('a');
    expect(await deleting(env, 'a')).toBe(false);
  });

  it('does not touch a NodeClaim already being deleted', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', expireAfter: '1h' });
    await env.client.delete('NodeClaim', { name: 'a' });
    env.clock.advance(3600);
    await expiration(env).reconcile('a');
    expect(eventsFor(env, 'a', 'Disrupted')).toHaveLength(0);
  });
});

describe('expiration in the running controllers', () => {
  it('replaces an expired node although the pool allows no voluntary disruption, the pod moving to a new node', async () => {
    const env = await disruptionEnv({
      pools: [disruptionPool({ budgets: [{ nodes: '0' }], expireAfter: '1h' })],
    });
    addWorkload(env, 'web', 1, { cpu: '1' });
    expect(await settle(env)).toBe(true);
    const [first] = await env.client.list('NodeClaim');
    expect(first?.spec.expireAfter).toBe('1h');
    env.clock.advance(3600); // an hour with nothing to do, skipped
    const gone = await env.loop.runUntil(
      async () =>
        (await env.client.get('NodeClaim', { name: first?.metadata.name ?? '' })) === undefined,
      600,
    );
    expect(gone).toBe(true);
    expect(await settle(env)).toBe(true);
    const [pod] = await env.client.list('Pod');
    expect(pod?.spec?.nodeName).toBeDefined();
    expect(pod?.spec?.nodeName).not.toBe(first?.status?.nodeName);
    env.loop.stop();
  });
});
