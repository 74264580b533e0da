/**
 * Pod events: `status.lastPodEventTime` of a node's NodeClaim
 * moves when a non-DaemonSet pod binds there, goes terminal, starts terminating or is deleted,
 * at most once every 10 s. Pods already bound when the controller starts are not events.
 */
import type { Pod } from '@karpenter-ts/api';
import { pod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { PodEvents, PodEventDedupeSeconds } from '../../src/index.js';
import { addNode, bindPods, unitEnv, type UnitEnv } from './support.js';

/**
 * A started PodEvents (it subscribes to the client's pod watch); `settled()` lets the writes it
 * started finish (the in-memory client has no timers: one macrotask turn drains them).
 */
function podEvents(env: UnitEnv): { settled: () => Promise<void> } {
  const controller = new PodEvents({ client: env.client, clock: env.clock });
  controller.start();
  return { settled: () => new Promise((resolve) => setImmediate(resolve)) };
}

async function lastPodEvent(env: UnitEnv): Promise<string | undefined> {
  return (await env.client.get('NodeClaim', { name: 'a' }))?.status?.lastPodEventTime;
}

async function createPending(env: UnitEnv, o: { ownerKind?: string } = {}): Promise<Pod> {
  return env.client.create('Pod', pod({ requests: { cpu: '1' }, ...o }));
}

async function bind(env: UnitEnv, p: Pod): Promise<void> {
  await env.client.bind({ name: p.metadata?.name ?? '', namespace: 'default' }, 'a');
}

function iso(env: UnitEnv): string {
  return new Date(env.clock.now()).toISOString();
}

describe('pod events', () => {
  it('records the time a pod binds to the node', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const events = podEvents(env);
    env.clock.advance(30);
    await bind(env, await createPending(env));
    await events.settled();
    expect(await lastPodEvent(env)).toBe(iso(env));
  });

  it('records a pod created already bound after the controller started', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const events = podEvents(env);
    env.clock.advance(30);
    await bindPods(env, 'a', 1);
    await events.settled();
    expect(await lastPodEvent(env)).toBe(iso(env));
  });

  it('records at most one event per 10 s: a second bind 5 s later keeps the first time, one 10 s later moves it', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const events = podEvents(env);
    await bind(env, await createPending(env));
    await events.settled();
    const first = iso(env);
    env.clock.advance(5);
    await bind(env, await createPending(env));
    await events.settled();
    expect(await lastPodEvent(env)).toBe(first);
    env.clock.advance(PodEventDedupeSeconds - 5);
    await bind(env, await createPending(env));
    await events.settled();
    expect(await lastPodEvent(env)).toBe(iso(env));
  });

  it('does not count pods already bound when the controller started', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const [running] = await bindPods(env, 'a', 1);
    env.clock.advance(60);
    const events = podEvents(env);
    await env.client.update('Pod', {
      ...(running as Pod),
      metadata: { ...running?.metadata, labels: { touched: 'yes' } },
    });
    await events.settled();
    expect(await lastPodEvent(env)).toBeUndefined();
  });

  it('counts a pod that was pending when the controller started and binds afterwards', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const pending = await createPending(env);
    env.clock.advance(60);
    const events = podEvents(env);
    await bind(env, pending);
    await events.settled();
    expect(await lastPodEvent(env)).toBe(iso(env));
  });

  it('records a pod on the node going terminal', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const events = podEvents(env);
    const [running] = await bindPods(env, 'a', 1);
    await events.settled();
    env.clock.advance(60);
    await env.client.updateStatus('Pod', {
      ...(running as Pod),
      status: { ...running?.status, phase: 'Succeeded' },
    });
    await events.settled();
    expect(await lastPodEvent(env)).toBe(iso(env));
  });

  it('records a pod on the node being deleted', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const events = podEvents(env);
    const [running] = await bindPods(env, 'a', 1);
    await events.settled();
    env.clock.advance(60);
    await env.client.delete('Pod', { name: running?.metadata?.name ?? '', namespace: 'default' });
    await events.settled();
    expect(await lastPodEvent(env)).toBe(iso(env));
  });

  it('does not count DaemonSet pods', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    const events = podEvents(env);
    env.clock.advance(30);
    await bind(env, await createPending(env, { ownerKind: 'DaemonSet' }));
    await bindPods(env, 'a', 1, { ownerKind: 'DaemonSet' });
    await events.settled();
    expect(await lastPodEvent(env)).toBeUndefined();
  });
});
