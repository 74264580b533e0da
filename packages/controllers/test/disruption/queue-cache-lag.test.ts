/**
 * The orchestration queue reads NodeClaims from a watch cache, which on a real API server holds a
 * just-created replacement only some milliseconds later. A replacement the cache does not have
 * yet is waited for during the command's first 5 s (upstream's eventual-consistency delay), not
 * taken as deleted: on the real control plane every replacing command was rolled back ~100 ms
 * after it started ("replacement nodeclaim X was deleted") while X went on to launch.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { ReplacementNotFoundGraceSeconds, setCondition } from '../../src/index.js';
import {
  addNode,
  bindPods,
  eventsFor,
  hasDisruptionReason,
  isTainted,
  reconcileAndValidate,
  unitEnv,
  type UnitEnv,
} from './support.js';

/**
 * `a` (xlarge, one 1-cpu pod) is being replaced, and the client's reads do not show the
 * replacement NodeClaim until `catchUp()` (a watch cache that lags the create).
 */
async function replacingWithLaggingCache(): Promise<{
  env: UnitEnv;
  replacement: string;
  catchUp: () => void;
}> {
  const env = await unitEnv();
  await addNode(env, { name: 'a', instanceType: 'xlarge' });
  await bindPods(env, 'a', 1);
  await reconcileAndValidate(env);
  const replacement = env.disruption.queue.commands()[0]?.replacements[0];
  if (replacement === undefined) throw new Error('no replacement was launched');
  const client = env.client;
  const get = client.get.bind(client);
  let lagging = true;
  client.get = (async (kind: string, key: { name: string }, ...rest: unknown[]) =>
    lagging && kind === 'NodeClaim' && key.name === replacement
      ? undefined
      : (get as (...a: unknown[]) => Promise<unknown>)(kind, key, ...rest)) as typeof client.get;
  return { env, replacement, catchUp: () => (lagging = false) };
}

async function initialize(env: UnitEnv, name: string): Promise<void> {
  const nc = (await env.client.get('NodeClaim', { name })) as NodeClaim;
  const now = env.clock.now();
  nc.status = { ...(nc.status ?? {}), providerID: `sim:///test-zone-1/${name}` };
  for (const type of ['Launched', 'Registered', 'Initialized'])
    setCondition(nc, { type, status: 'True' }, now);
  await env.client.updateStatus('NodeClaim', nc);
}

describe('a replacement the cache has not seen yet', () => {
  it('is waited for: the command stays, the candidate stays tainted and marked', async () => {
    const { env } = await replacingWithLaggingCache();
    await env.disruption.queue.reconcile();
    env.clock.advance(ReplacementNotFoundGraceSeconds);
    await env.disruption.queue.reconcile();
    expect(env.disruption.queue.commands()).toHaveLength(1);
    expect(await isTainted(env, 'a')).toBe(true);
    expect(await hasDisruptionReason(env, 'a')).toBe(true);
    expect(env.cluster.node('a')?.markedForDeletion).toBe(true);
    expect(eventsFor(env, 'a', 'DisruptionBlocked')).toEqual([]);
  });

  it('once the cache has it and it initializes, the candidate is deleted', async () => {
    const { env, replacement, catchUp } = await replacingWithLaggingCache();
    await env.disruption.queue.reconcile();
    env.clock.advance(2);
    catchUp();
    await initialize(env, replacement);
    await env.disruption.queue.reconcile();
    expect(
      (await env.client.get('NodeClaim', { name: 'a' }))?.metadata.deletionTimestamp,
    ).toBeDefined();
    expect(env.disruption.queue.commands()).toHaveLength(0);
  });

  it('still missing after 5 s, it is taken as deleted and the command rolled back', async () => {
    const { env, replacement } = await replacingWithLaggingCache();
    env.clock.advance(ReplacementNotFoundGraceSeconds + 1);
    await env.disruption.queue.reconcile();
    expect(env.disruption.queue.commands()).toHaveLength(0);
    expect(await isTainted(env, 'a')).toBe(false);
    expect(await hasDisruptionReason(env, 'a')).toBe(false);
    expect(env.cluster.node('a')?.markedForDeletion).toBe(false);
    expect(eventsFor(env, 'a', 'DisruptionBlocked').at(-1)?.message).toMatch(
      new RegExp(`replacement nodeclaim ${replacement} was deleted`),
    );
  });
});
