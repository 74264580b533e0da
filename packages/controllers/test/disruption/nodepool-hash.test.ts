/**
 * The NodePool hash controller: writes the static-drift hash and its
 * version on the NodePool and, when the version changes (a pool made by upstream Karpenter),
 * re-baselines the NodeClaims so the change never reads as drift.
 */
import type { NodeClaim, NodePool } from '@karpenter-ts/api';
import {
  Annotations,
  NodeClaimConditions,
  nodePoolHash,
  NodePoolHashVersion,
} from '@karpenter-ts/api';
import { describe, expect, it } from 'vitest';
import { getCondition, NodeClaimDisruption, NodePoolHash } from '../../src/index.js';
import { addNode, disruptionPool, unitEnv, type UnitEnv } from './support.js';

/** A pool as upstream Karpenter left it: its Go hash under version v3. */
function upstreamPool(): NodePool {
  const pool = disruptionPool();
  pool.metadata.annotations = {
    [Annotations.NodePoolHash]: '6821555240504101763',
    [Annotations.NodePoolHashVersion]: 'v3',
  };
  return pool;
}

async function annotations(env: UnitEnv, kind: 'NodePool' | 'NodeClaim', name: string) {
  const o = (await env.client.get(kind, { name })) as NodePool | NodeClaim;
  return o.metadata.annotations ?? {};
}

async function reconcileHash(env: UnitEnv): Promise<void> {
  await new NodePoolHash({ client: env.client }).reconcile('default');
}

async function driftReason(env: UnitEnv, name: string): Promise<string | undefined> {
  await new NodeClaimDisruption({
    client: env.client,
    cloudProvider: env.cloud,
    clock: env.clock,
  }).reconcile(name);
  const nc = (await env.client.get('NodeClaim', { name })) as NodeClaim;
  return getCondition(nc, NodeClaimConditions.Drifted)?.reason;
}

describe('the NodePool hash controller', () => {
  it('writes the hash and our hash version on a NodePool', async () => {
    const env = await unitEnv();
    await reconcileHash(env);
    const pool = (await env.client.get('NodePool', { name: 'default' })) as NodePool;
    expect(await annotations(env, 'NodePool', 'default')).toMatchObject({
      [Annotations.NodePoolHash]: nodePoolHash(pool),
      [Annotations.NodePoolHashVersion]: NodePoolHashVersion,
    });
  });

  it('changes the hash when a template label changes, not when requirements change', async () => {
    const env = await unitEnv();
    await reconcileHash(env);
    const before = (await annotations(env, 'NodePool', 'default'))[Annotations.NodePoolHash];
    const pool = (await env.client.get('NodePool', { name: 'default' })) as NodePool;
    pool.spec.template.spec.requirements = [
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['large'] },
    ];
    await env.client.update('NodePool', pool);
    await reconcileHash(env);
    expect((await annotations(env, 'NodePool', 'default'))[Annotations.NodePoolHash]).toBe(before);
    const again = (await env.client.get('NodePool', { name: 'default' })) as NodePool;
    again.spec.template.metadata = { labels: { team: 'b' } };
    await env.client.update('NodePool', again);
    await reconcileHash(env);
    expect((await annotations(env, 'NodePool', 'default'))[Annotations.NodePoolHash]).not.toBe(
      before,
    );
  });

  it("re-baselines the NodeClaims of a pool whose hash version is not ours: our version and the pool's new hash", async () => {
    const env = await unitEnv({ pools: [upstreamPool()] });
    await addNode(env, { name: 'a' });
    expect((await annotations(env, 'NodeClaim', 'a'))[Annotations.NodePoolHashVersion]).toBe('v3');
    await reconcileHash(env);
    const pool = await annotations(env, 'NodePool', 'default');
    expect(pool[Annotations.NodePoolHashVersion]).toBe(NodePoolHashVersion);
    expect(await annotations(env, 'NodeClaim', 'a')).toMatchObject({
      [Annotations.NodePoolHash]: pool[Annotations.NodePoolHash],
      [Annotations.NodePoolHashVersion]: NodePoolHashVersion,
    });
  });

  it('does not drift a NodeClaim because of a hash-version change', async () => {
    const env = await unitEnv({ pools: [upstreamPool()] });
    await addNode(env, { name: 'a' });
    await reconcileHash(env);
    expect(await driftReason(env, 'a')).toBeUndefined();
  });

  it('detects a later template change on a re-baselined NodeClaim', async () => {
    const env = await unitEnv({ pools: [upstreamPool()] });
    await addNode(env, { name: 'a' });
    await reconcileHash(env);
    const pool = (await env.client.get('NodePool', { name: 'default' })) as NodePool;
    pool.spec.template.metadata = { labels: { team: 'b' } };
    await env.client.update('NodePool', pool);
    await reconcileHash(env);
    expect(await driftReason(env, 'a')).toBe('NodePoolDrifted');
  });

  it('keeps the old hash of a NodeClaim that is already Drifted, updating only its version', async () => {
    const env = await unitEnv({ pools: [upstreamPool()] });
    await addNode(env, {
      name: 'a',
      drifted: true,
      nodeClaimAnnotations: { [Annotations.NodePoolHash]: '42' },
    });
    await reconcileHash(env);
    expect(await annotations(env, 'NodeClaim', 'a')).toMatchObject({
      [Annotations.NodePoolHash]: '42',
      [Annotations.NodePoolHashVersion]: NodePoolHashVersion,
    });
  });

  it('leaves NodeClaims alone when the pool already carries our version', async () => {
    const env = await unitEnv();
    await reconcileHash(env);
    await addNode(env, { name: 'a', nodeClaimAnnotations: { [Annotations.NodePoolHash]: '42' } });
    const pool = (await env.client.get('NodePool', { name: 'default' })) as NodePool;
    pool.spec.template.metadata = { labels: { team: 'b' } };
    await env.client.update('NodePool', pool);
    await reconcileHash(env);
    expect((await annotations(env, 'NodeClaim', 'a'))[Annotations.NodePoolHash]).toBe('42');
  });
});
