import { Finalizers, Labels, Taints } from '@karpenter-ts/api';
import {
  CreateError,
  InsufficientCapacityError,
  NodeClassNotReadyError,
} from '@karpenter-ts/cloudprovider';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { ConflictError, getCondition, isTrue, NodeClaimLifecycle } from '../src/index.js';
import {
  apply,
  nodeClaim,
  provision,
  provisionNodes,
  readyNodePool,
  reconcileNodeClaims,
  testEnv,
  type TestEnv,
} from './helpers.js';

async function oneClaim(env: TestEnv, pool = readyNodePool()): Promise<string> {
  await apply(env, pool, unschedulablePod({ requests: { cpu: '1' } }));
  const [nc] = await provision(env);
  return nc?.metadata.name ?? '';
}

describe('NodeClaim lifecycle', () => {
  it('adds the termination finalizer before launching', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.cloud.failNextCreate(new Error('cloud API down'));
    await env.lifecycle.reconcile(name);
    const nc = await nodeClaim(env, name);
    expect(nc?.metadata.finalizers).toContain(Finalizers.Termination);
    expect(env.cloud.instances()).toHaveLength(0);
  });

  it('launches and copies what the cloud resolved', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    await env.lifecycle.reconcile(name);
    const nc = await nodeClaim(env, name);
    expect(isTrue(nc ?? {}, 'Launched')).toBe(true);
    expect(nc?.status?.providerID).toBe(env.cloud.instances()[0]?.providerID);
    expect(nc?.status?.capacity?.cpu).toBeDefined();
    expect(nc?.status?.allocatable?.memory).toBeDefined();
    expect(nc?.metadata.labels?.[Labels.InstanceType]).toBe(env.cloud.instances()[0]?.instanceType);
    expect(nc?.metadata.labels?.[Labels.NodePool]).toBe('default');
  });

  it('deletes the node claim when the cloud has no capacity', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.cloud.failNextCreate(new InsufficientCapacityError('all sold out'));
    await env.lifecycle.reconcile(name);
    expect((await nodeClaim(env, name))?.metadata.deletionTimestamp).toBeDefined();
    expect(env.client.events.some((e) => e.reason === 'InsufficientCapacityError')).toBe(true);
    await env.lifecycle.reconcile(name); // finalization: nothing launched, finalizer removed
    expect(await nodeClaim(env, name)).toBeUndefined();
  });

  it('deletes the node claim when its NodeClass is not ready', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.cloud.failNextCreate(new NodeClassNotReadyError('default'));
    await env.lifecycle.reconcile(name);
    await env.lifecycle.reconcile(name);
    expect(await nodeClaim(env, name)).toBeUndefined();
  });

  it('marks Launched Unknown with the provider reason on other errors and retries with backoff', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.cloud.failNextCreate(new CreateError('QuotaExceeded', 'vCPU quota reached'));
    const first = await env.lifecycle.reconcile(name);
    const launched = getCondition((await nodeClaim(env, name)) ?? {}, 'Launched');
    expect(launched).toMatchObject({
      status: 'Unknown',
      reason: 'QuotaExceeded',
      message: 'vCPU quota reached',
    });
    expect(first.requeueAfter).toBe(1);
    env.cloud.failNextCreate(new Error('x'.repeat(400)));
    const second = await env.lifecycle.reconcile(name);
    expect(second.requeueAfter).toBe(2);
    const failed = getCondition((await nodeClaim(env, name)) ?? {}, 'Launched');
    expect(failed?.reason).toBe('LaunchFailed');
    expect(failed?.message).toHaveLength(300);
    await env.lifecycle.reconcile(name);
    expect(isTrue((await nodeClaim(env, name)) ?? {}, 'Launched')).toBe(true);
  });

  it('does not launch twice when the status write after launch fails', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    await env.lifecycle.reconcile(name); // finalizer... and launch in the same pass
    expect(env.cloud.instances()).toHaveLength(1);
    const nc = await nodeClaim(env, name);
    expect(nc?.status?.providerID).toBeTruthy();

    const env2 = await testEnv();
    const name2 = await oneClaim(env2);
    env2.client.failNext('updateStatus', new ConflictError('lagging cache'), 'NodeClaim');
    const r = await env2.lifecycle.reconcile(name2);
    expect(r.requeueAfter).toBe(1);
    expect((await nodeClaim(env2, name2))?.status?.providerID).toBeUndefined();
    await env2.lifecycle.reconcile(name2);
    expect(env2.cloud.instances()).toHaveLength(1);
    expect((await nodeClaim(env2, name2))?.status?.providerID).toBe(
      env2.cloud.instances()[0]?.providerID,
    );
  });

  it('a crash between cloud create and status write leaves no orphan: the next launch finds the instance by name', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.client.failNext('updateStatus', new Error('controller crashed'), 'NodeClaim');
    await expect(env.lifecycle.reconcile(name)).rejects.toThrow('controller crashed');
    expect(env.cloud.instances()).toHaveLength(1);
    // A new process: no launch cache.
    const restarted = new NodeClaimLifecycle({
      client: env.client,
      cloudProvider: env.cloud,
      clock: env.clock,
    });
    await restarted.reconcile(name);
    expect(env.cloud.instances()).toHaveLength(1);
    expect((await nodeClaim(env, name))?.status?.providerID).toBe(
      env.cloud.instances()[0]?.providerID,
    );
  });

  it('a crash between cloud create and status write leaves no orphan: garbage collection removes the instance of a deleted claim', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.client.failNext('updateStatus', new Error('controller crashed'), 'NodeClaim');
    await expect(env.lifecycle.reconcile(name)).rejects.toThrow('controller crashed');
    await env.client.delete('NodeClaim', { name });
    await env.lifecycle.reconcile(name); // no provider ID known: finalizer removed, instance left
    expect(await nodeClaim(env, name)).toBeUndefined();
    expect(env.cloud.instances()).toHaveLength(1);
    await env.gc.reconcile(); // orphaned, but launched just now: younger than the grace
    expect(env.cloud.instances()).toHaveLength(1);
    env.clock.advance(30);
    const r = await env.gc.reconcile();
    expect(r.instancesDeleted).toHaveLength(1);
    expect(env.cloud.instances()).toHaveLength(0);
  });

  it('registers the node: finalizer, owner, taints, labels, unregistered taint removed', async () => {
    const env = await testEnv();
    await apply(
      env,
      readyNodePool({
        labels: { team: 'a' },
        taints: [{ key: 'dedicated', effect: 'NoSchedule' }],
        startupTaints: [{ key: 'cni-not-ready', effect: 'NoSchedule' }],
      }),
      unschedulablePod({
        requests: { cpu: '1' },
        tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      }),
    );
    const [nc] = await provision(env);
    const ncName = nc?.metadata.name ?? '';
    await env.lifecycle.reconcile(ncName);
    await env.kubelet.reconcile();
    const registering = (await env.client.list('Node'))[0];
    expect(registering?.spec?.taints).toContainEqual(Taints.Unregistered);
    await env.lifecycle.reconcile(ncName);
    const node = await env.client.get('Node', { name: registering?.metadata?.name ?? '' });
    const registered = await nodeClaim(env, ncName);
    expect(node?.metadata?.finalizers).toContain(Finalizers.Termination);
    expect(node?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'NodeClaim',
      name: ncName,
      uid: registered?.metadata.uid,
    });
    expect(node?.metadata?.labels).toMatchObject({ team: 'a', [Labels.Registered]: 'true' });
    expect(node?.spec?.taints?.map((t) => t.key).sort()).toEqual(['cni-not-ready', 'dedicated']);
    expect(isTrue(registered ?? {}, 'Registered')).toBe(true);
    expect(registered?.status?.nodeName).toBe(node?.metadata?.name);
    // Startup taint still there: not initialized.
    expect(getCondition(registered ?? {}, 'Initialized')).toMatchObject({
      status: 'Unknown',
      reason: 'StartupTaintsExist',
    });
    await env.kubelet.reconcile(); // the CNI removes its startup taint
    await env.lifecycle.reconcile(ncName);
    const ready = await nodeClaim(env, ncName);
    expect(isTrue(ready ?? {}, 'Initialized')).toBe(true);
    expect(isTrue(ready ?? {}, 'Ready')).toBe(true);
    expect(
      (await env.client.get('Node', { name: node?.metadata?.name ?? '' }))?.metadata?.labels?.[
        Labels.Initialized
      ],
    ).toBe('true');
  });

  it('reports NodeNotFound until the node registers', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    await env.lifecycle.reconcile(name);
    expect(getCondition((await nodeClaim(env, name)) ?? {}, 'Registered')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeNotFound',
    });
  });

  it('waits for the node to be Ready before initializing', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    await env.lifecycle.reconcile(name);
    await env.kubelet.reconcile();
    const node = (await env.client.list('Node'))[0];
    if (node?.status) node.status.conditions = [{ type: 'Ready', status: 'False' }];
    await env.client.updateStatus('Node', node!);
    await env.lifecycle.reconcile(name);
    expect(getCondition((await nodeClaim(env, name)) ?? {}, 'Initialized')).toMatchObject({
      status: 'Unknown',
      reason: 'NodeNotReady',
    });
  });

  it('waits for requested extended resources to appear on the node', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    await env.lifecycle.reconcile(name);
    // A GPU request on the launched claim (spec is immutable in the API; the store allows it here)
    // that the node's allocatable does not report.
    const nc = await nodeClaim(env, name);
    nc!.spec.resources = {
      requests: { ...(nc!.spec.resources?.requests ?? {}), 'nvidia.com/gpu': '1' },
    };
    await env.client.update('NodeClaim', nc!);
    await env.kubelet.reconcile();
    await env.lifecycle.reconcile(name);
    expect(getCondition((await nodeClaim(env, name)) ?? {}, 'Initialized')).toMatchObject({
      status: 'Unknown',
      reason: 'ResourceNotRegistered',
    });
  });

  it('deletes a node claim that has not launched after 5 minutes', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    env.cloud.failNextCreate(new Error('boom'));
    await env.lifecycle.reconcile(name);
    env.clock.advance(4 * 60);
    env.cloud.failNextCreate(new Error('boom'));
    const r = await env.lifecycle.reconcile(name);
    expect(r.requeueAfter).toBeLessThanOrEqual(60);
    expect((await nodeClaim(env, name))?.metadata.deletionTimestamp).toBeUndefined();
    env.clock.advance(61);
    env.cloud.failNextCreate(new Error('boom'));
    await env.lifecycle.reconcile(name);
    expect((await nodeClaim(env, name))?.metadata.deletionTimestamp).toBeDefined();
  });

  it('deletes a launched node claim whose node has not registered after 15 minutes', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    const r = await env.lifecycle.reconcile(name);
    expect(r.requeueAfter).toBe(15 * 60);
    env.clock.advance(15 * 60);
    await env.lifecycle.reconcile(name);
    expect((await nodeClaim(env, name))?.metadata.deletionTimestamp).toBeDefined();
    expect(env.client.events.some((e) => /registration_timeout/.test(e.message))).toBe(true);
  });

  it('finalizes in order: node deleted first, then the instance, then the finalizer', async () => {
    const env = await testEnv();
    await apply(
      env,
      readyNodePool({ terminationGracePeriod: '10m' }),
      unschedulablePod({ requests: { cpu: '1' } }),
    );
    const [node] = await provisionNodes(env);
    const name = (await env.client.list('NodeClaim'))[0]?.metadata.name ?? '';
    await env.client.delete('NodeClaim', { name });
    await env.lifecycle.reconcile(name);
    const deleting = await nodeClaim(env, name);
    expect(deleting?.metadata.annotations?.['karpenter.sh/nodeclaim-termination-timestamp']).toBe(
      new Date(env.clock.now() + 600_000).toISOString().replace('.000Z', 'Z'),
    );
    expect(
      (await env.client.get('Node', { name: node?.metadata?.name ?? '' }))?.metadata
        ?.deletionTimestamp,
    ).toBeDefined();
    expect(env.cloud.instances()).toHaveLength(1); // waits for the node
    // Node termination drains, deletes the instance, removes the node finalizer.
    for (let i = 0; i < 10 && (await env.client.list('Node')).length > 0; i++) {
      await env.termination.reconcile(node?.metadata?.name ?? '');
      env.clock.advance(5);
    }
    expect(await env.client.list('Node')).toHaveLength(0);
    await env.lifecycle.reconcile(name);
    expect(await nodeClaim(env, name)).toBeUndefined();
    expect(env.cloud.instances()).toHaveLength(0);
  });

  it('keeps calling cloud delete until the instance is gone', async () => {
    const env = await testEnv();
    const name = await oneClaim(env);
    await env.lifecycle.reconcile(name);
    await env.client.delete('NodeClaim', { name });
    const r = await env.lifecycle.reconcile(name);
    expect(r.requeueAfter).toBe(5);
    expect(isTrue((await nodeClaim(env, name)) ?? {}, 'InstanceTerminating')).toBe(true);
    await env.lifecycle.reconcile(name);
    expect(await nodeClaim(env, name)).toBeUndefined();
  });

  it('reconciles every claim of a batch to Ready', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    await provisionNodes(env);
    await reconcileNodeClaims(env);
    const [nc] = await env.client.list('NodeClaim');
    expect(isTrue(nc ?? {}, 'Ready')).toBe(true);
  });
});
