/**
 * The orchestration queue: taint and mark the candidates,
 * launch the replacements, mark for deletion only after that, wait for the replacements to
 * initialize, then delete the candidates; a replacement that vanished or a command older than
 * 10 min is rolled back in full.
 */
import type { NodeClaim } from '@karpenter-ts/api';
import { NodeClaimConditions } from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import {
  CommandStartError,
  KubeApiError,
  QueueMinTimeoutSeconds,
  ReplacementNotFoundGraceSeconds,
  setCondition,
} from '../../src/index.js';
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

/** `a` (xlarge, one 1-cpu pod) is being replaced: the command is in the queue. */
async function replacingA(): Promise<{ env: UnitEnv; replacement: string }> {
  const env = await unitEnv();
  await addNode(env, { name: 'a', instanceType: 'xlarge' });
  await bindPods(env, 'a', 1);
  await reconcileAndValidate(env);
  const [entry] = env.disruption.queue.commands();
  const replacement = entry?.replacements[0];
  if (replacement === undefined) throw new Error('no replacement was launched');
  return { env, replacement };
}

/** What launch and initialization would write on the replacement. */
async function initialize(env: UnitEnv, name: string): Promise<void> {
  const nc = (await env.client.get('NodeClaim', { name })) as NodeClaim;
  const now = env.clock.now();
  nc.status = { ...(nc.status ?? {}), providerID: `sim:///test-zone-1/${name}` };
  for (const type of ['Launched', 'Registered', 'Initialized'])
    setCondition(nc, { type, status: 'True' }, now);
  await env.client.updateStatus('NodeClaim', nc);
}

async function expectRolledBack(env: UnitEnv, why: RegExp): Promise<void> {
  expect(env.disruption.queue.commands()).toHaveLength(0);
  expect(await isTainted(env, 'a')).toBe(false);
  expect(await hasDisruptionReason(env, 'a')).toBe(false);
  expect(env.cluster.node('a')?.markedForDeletion).toBe(false);
  expect((await env.client.get('NodeClaim', { name: 'a' }))?.metadata.deletionTimestamp).toBe(
    undefined,
  );
  const blocked = eventsFor(env, 'a', 'DisruptionBlocked');
  expect(blocked.at(-1)?.message).toMatch(why);
}

describe('starting a command', () => {
  it('taints the candidate, sets DisruptionReason, creates the replacement and marks the candidate for deletion', async () => {
    const { env, replacement } = await replacingA();
    expect(await isTainted(env, 'a')).toBe(true);
    expect(await hasDisruptionReason(env, 'a')).toBe(true);
    expect(await env.client.get('NodeClaim', { name: replacement })).toBeDefined();
    expect(env.cluster.node('a')?.markedForDeletion).toBe(true);
  });

  it('undoes the marks and does not mark for deletion when the replacement cannot be created', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a', instanceType: 'xlarge' });
    await bindPods(env, 'a', 1);
    await env.disruption.reconcile();
    env.client.failNext('create', new KubeApiError(500, 'etcd is down'), 'NodeClaim');
    env.clock.advance(15);
    await env.disruption.reconcile();
    expect(env.disruption.queue.commands()).toHaveLength(0);
    expect(await isTainted(env, 'a')).toBe(false);
    expect(await hasDisruptionReason(env, 'a')).toBe(false);
    expect(env.cluster.node('a')?.markedForDeletion).toBe(false);
    expect(eventsFor(env, 'a', 'DisruptionBlocked').at(-1)?.message).toMatch(
      /launching replacements failed: etcd is down/,
    );
  });

  it("nominates the existing node the candidate's pods will move to, so the next pass leaves it alone", async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await addNode(env, { name: 'b', consolidatable: false });
    await bindPods(env, 'a', 1);
    await reconcileAndValidate(env);
    expect(env.disruption.queue.commands()[0]?.command.replacements).toEqual([]);
    expect(env.cluster.node('b')?.nominated(env.clock.now())).toBe(true);
  });

  it('refuses a command for a node another command holds', async () => {
    const { env } = await replacingA();
    const [entry] = env.disruption.queue.commands();
    if (entry === undefined) throw new Error('no command');
    await expect(env.disruption.queue.start(entry.command)).rejects.toThrow(CommandStartError);
    await expect(env.disruption.queue.start(entry.command)).rejects.toThrow(
      /node a is already being disrupted/,
    );
  });
});

describe('carrying a command out', () => {
  it('keeps the candidate while the replacement has not initialized, saying so once', async () => {
    const { env } = await replacingA();
    await env.disruption.queue.reconcile();
    await env.disruption.queue.reconcile();
    expect((await env.client.get('NodeClaim', { name: 'a' }))?.metadata.deletionTimestamp).toBe(
      undefined,
    );
    expect(eventsFor(env, 'a', 'DisruptionLaunching')).toHaveLength(2); // at start, then waiting
    expect(env.disruption.queue.commands()).toHaveLength(1);
  });

  it('deletes the candidate once its replacement is initialized', async () => {
    const { env, replacement } = await replacingA();
    await initialize(env, replacement);
    await env.disruption.queue.reconcile();
    expect(
      (await env.client.get('NodeClaim', { name: 'a' }))?.metadata.deletionTimestamp,
    ).toBeDefined();
    expect(eventsFor(env, 'a', 'DisruptionTerminating')).toHaveLength(1);
    expect(env.disruption.queue.commands()).toHaveLength(0);
  });

  it('deletes the candidates of a delete command on its first pass', async () => {
    const env = await unitEnv();
    await addNode(env, { name: 'a' });
    await reconcileAndValidate(env);
    expect(env.disruption.queue.commands()).toHaveLength(1);
    await env.disruption.queue.reconcile();
    expect(
      (await env.client.get('NodeClaim', { name: 'a' }))?.metadata.deletionTimestamp,
    ).toBeDefined();
  });
});

describe('rollback', () => {
  it('rolls back when the replacement is deleted before it initialized: untainted, DisruptionReason removed, unmarked', async () => {
    const { env, replacement } = await replacingA();
    await env.client.delete('NodeClaim', { name: replacement });
    // Gone for good: past the first seconds in which a missing replacement is the cache lagging.
    env.clock.advance(ReplacementNotFoundGraceSeconds + 1);
    await env.disruption.queue.reconcile();
    await expectRolledBack(env, new RegExp(`replacement nodeclaim ${replacement} was deleted`));
  });

  it('keeps waiting for 10 minutes', async () => {
    const { env } = await replacingA();
    env.clock.advance(QueueMinTimeoutSeconds);
    await env.disruption.queue.reconcile();
    expect(env.disruption.queue.commands()).toHaveLength(1);
    expect(await isTainted(env, 'a')).toBe(true);
  });

  it('rolls back a command whose replacement has not initialized after 10 minutes', async () => {
    const { env } = await replacingA();
    env.clock.advance(QueueMinTimeoutSeconds + 1);
    await env.disruption.queue.reconcile();
    await expectRolledBack(env, /timed out after 600 s/);
  });

  it('leaves the replacement that was launched (it is an ordinary node now)', async () => {
    const { env, replacement } = await replacingA();
    env.clock.advance(QueueMinTimeoutSeconds + 1);
    await env.disruption.queue.reconcile();
    expect(await env.client.get('NodeClaim', { name: replacement })).toBeDefined();
  });

  it('lets the rolled-back node be a candidate again', async () => {
    const { env, replacement } = await replacingA();
    await env.client.delete('NodeClaim', { name: replacement });
    // Gone for good: past the first seconds in which a missing replacement is the cache lagging.
    env.clock.advance(ReplacementNotFoundGraceSeconds + 1);
    await env.disruption.queue.reconcile();
    const plan = await env.disruption.plan();
    expect(plan.notCandidates.find((n) => n.name === 'a')).toBeUndefined();
    expect(
      env.cluster
        .nodes()
        .find((n) => n.name() === 'a')
        ?.nodeClaim?.status?.conditions?.some(
          (c) => c.type === NodeClaimConditions.DisruptionReason,
        ),
    ).toBe(false);
  });
});
