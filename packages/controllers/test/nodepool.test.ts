import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { ControllerLoop, getCondition } from '../src/index.js';
import { nodeClass, readyNodePool, testEnv } from './helpers.js';
import { NodePoolReadiness, NodePoolValidation } from '../src/index.js';

/** A NodePool as users apply it: no status. */
function freshPool(o: Parameters<typeof readyNodePool>[0] = {}) {
  const pool = readyNodePool(o);
  delete pool.status;
  return pool;
}

describe('NodePool validation and readiness', () => {
  it('makes a valid NodePool Ready once its NodeClass is Ready', async () => {
    const env = await testEnv();
    await env.client.create('NodePool', freshPool());
    await env.client.create('NodeClass', nodeClass('True'));
    const validation = new NodePoolValidation({ client: env.client, clock: env.clock });
    const readiness = new NodePoolReadiness({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    });
    await validation.reconcile('default');
    await readiness.reconcile('default');
    const pool = await env.client.get('NodePool', { name: 'default' });
    expect(getCondition(pool ?? {}, 'ValidationSucceeded')?.status).toBe('True');
    expect(getCondition(pool ?? {}, 'NodeClassReady')?.status).toBe('True');
    expect(getCondition(pool ?? {}, 'Ready')?.status).toBe('True');
  });

  it('is not Ready while its NodeClass is missing or not Ready', async () => {
    const env = await testEnv();
    await env.client.create('NodePool', freshPool());
    const validation = new NodePoolValidation({ client: env.client, clock: env.clock });
    const readiness = new NodePoolReadiness({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    });
    await validation.reconcile('default');
    await readiness.reconcile('default');
    let pool = await env.client.get('NodePool', { name: 'default' });
    expect(getCondition(pool ?? {}, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NodeClassNotFound',
    });
    await env.client.create('NodeClass', nodeClass('False'));
    await readiness.reconcile('default');
    pool = await env.client.get('NodePool', { name: 'default' });
    expect(getCondition(pool ?? {}, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SubnetsNotFound',
    });
  });

  it('is not Ready when runtime validation fails', async () => {
    const env = await testEnv();
    await env.client.create(
      'NodePool',
      freshPool({
        taints: [{ key: 'a', effect: 'NoSchedule' }],
        startupTaints: [{ key: 'a', effect: 'NoSchedule' }],
      }),
    );
    await env.client.create('NodeClass', nodeClass('True'));
    await new NodePoolValidation({ client: env.client, clock: env.clock }).reconcile('default');
    await new NodePoolReadiness({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    }).reconcile('default');
    const pool = await env.client.get('NodePool', { name: 'default' });
    expect(getCondition(pool ?? {}, 'ValidationSucceeded')?.status).toBe('False');
    expect(getCondition(pool ?? {}, 'Ready')?.status).toBe('False');
  });

  it('provisions from a NodePool applied without status once its NodeClass is Ready', async () => {
    const env = await testEnv();
    await env.client.create('NodePool', freshPool());
    await env.client.create('NodeClass', nodeClass('True'));
    await env.client.create('Pod', unschedulablePod({ requests: { cpu: '1' } }));
    const loop = new ControllerLoop({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
      provisioner: { solver: 'ts' },
    });
    await loop.start();
    expect(
      await loop.runUntil(
        async () => (await env.client.list('Pod')).every((p) => p.spec?.nodeName),
        60,
      ),
    ).toBe(true);
    loop.stop();
  });
});
