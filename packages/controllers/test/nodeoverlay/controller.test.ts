import { Annotations } from '@karpenter-ts/api';
import { unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import {
  InstanceTypeStore,
  NodeClaimLifecycle,
  NodeOverlayController,
  OverlaidCloudProvider,
  Provisioner,
} from '../../src/index.js';
import { apply, readyNodePool, testEnv, type TestEnv } from '../helpers.js';
import { addWorkload, disruptionEnv, settle } from '../disruption/support.js';
import { instanceType, overlay } from './builders.js';

/** The test environment with the NodeOverlay gate on: the controllers read the overlaid provider. */
async function overlayEnv() {
  const env = await testEnv();
  const store = new InstanceTypeStore();
  const overlaid = new OverlaidCloudProvider(env.cloud, store);
  const controller = new NodeOverlayController({
    client: env.client,
    cloudProvider: env.cloud,
    store,
    clock: env.clock,
  });
  const provisioner = new Provisioner({
    client: env.client,
    cluster: env.cluster,
    cloudProvider: overlaid,
    clock: env.clock,
    solver: 'ts',
  });
  const lifecycle = new NodeClaimLifecycle({
    client: env.client,
    cloudProvider: overlaid,
    clock: env.clock,
  });
  return { ...env, store, overlaid, controller, provisioner, lifecycle };
}

async function provisionWith(env: TestEnv & { provisioner: Provisioner }) {
  for (const pod of await env.client.list('Pod')) env.provisioner.trigger(pod.metadata?.uid ?? '');
  env.clock.advance(env.provisioner.batcher.idleSeconds);
  await env.provisioner.reconcile();
  return env.client.list('NodeClaim');
}

/** Launches the claim (finalizer, then launch) and returns its instance type label. */
async function launchedType(env: Awaited<ReturnType<typeof overlayEnv>>, name: string) {
  await env.lifecycle.reconcile(name);
  await env.lifecycle.reconcile(name);
  return (await env.client.get('NodeClaim', { name }))?.metadata.labels?.[
    'node.kubernetes.io/instance-type'
  ];
}

const instanceTypeOf = (
  nc: { spec: { requirements: { key: string; values?: string[] }[] } } | undefined,
) => nc?.spec.requirements.find((r) => r.key === 'node.kubernetes.io/instance-type')?.values?.[0];

describe('NodeOverlay controller and the overlaid cloud provider', () => {
  it('a NodePool is left out of provisioning until the overlays have been evaluated against it', async () => {
    const env = await overlayEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '500m' } }));
    expect(await provisionWith(env)).toHaveLength(0);
    await env.controller.reconcile();
    expect(await provisionWith(env)).toHaveLength(1);
  });

  it('a price overlay changes the cheapest option: the claim is annotated and launches the overlaid type', async () => {
    const env = await overlayEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '500m' } }));
    await env.client.create(
      'NodeOverlay',
      overlay('it-2-cheap', { requirements: instanceType('fake-it-2'), price: '0.001' }),
    );
    await env.controller.reconcile();
    const [nc] = await provisionWith(env);
    expect(nc?.metadata.annotations?.[Annotations.PriceOverlayApplied]).toBe('true');
    expect(await launchedType(env, nc?.metadata.name ?? '')).toBe('fake-it-2');
    expect(nc?.metadata.annotations?.[Annotations.CapacityOverlayApplied]).toBeUndefined();
  });

  it("without overlays the same pod gets the provider's cheapest type and no overlay annotation", async () => {
    const env = await overlayEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '500m' } }));
    await env.controller.reconcile();
    const [nc] = await provisionWith(env);
    expect(nc?.metadata.annotations?.[Annotations.PriceOverlayApplied]).toBeUndefined();
    expect(await launchedType(env, nc?.metadata.name ?? '')).toBe('fake-it-0');
  });

  it('a capacity overlay makes a pod requesting an extended resource fit, and the launch records the capacity', async () => {
    const env = await overlayEnv();
    const pod = unschedulablePod({ requests: { cpu: '500m', 'example.com/license': '1' } });
    await apply(env, readyNodePool(), pod);
    await env.controller.reconcile();
    expect(await provisionWith(env)).toHaveLength(0); // no instance type has the resource

    await env.client.create(
      'NodeOverlay',
      overlay('license', {
        requirements: instanceType('fake-it-3'),
        capacity: { 'example.com/license': '4' },
      }),
    );
    await env.controller.reconcile();
    const [nc] = await provisionWith(env);
    expect(instanceTypeOf(nc)).toBe('fake-it-3');
    expect(nc?.metadata.annotations?.[Annotations.CapacityOverlayApplied]).toBe('true');
    await env.lifecycle.reconcile(nc?.metadata.name ?? ''); // finalizer
    await env.lifecycle.reconcile(nc?.metadata.name ?? ''); // launch
    const launched = await env.client.get('NodeClaim', { name: nc?.metadata.name ?? '' });
    expect(launched?.status?.providerID).toBeTruthy();
    expect(launched?.status?.capacity?.['example.com/license']).toBe('4');
    expect(launched?.status?.allocatable?.['example.com/license']).toBe('4');
  });

  it('writes ValidationSucceeded and Ready: True when applied, False with Conflict for the loser', async () => {
    const env = await overlayEnv();
    await apply(env, readyNodePool());
    await env.client.create('NodeOverlay', overlay('alpha', { price: '0.2', weight: 7 }));
    await env.client.create('NodeOverlay', overlay('beta', { price: '0.3', weight: 7 }));
    expect((await env.controller.reconcile()).requeueAfter).toBe(6 * 3600);
    const condition = async (name: string, type: string) =>
      (await env.client.get('NodeOverlay', { name }))?.status?.conditions?.find(
        (c) => c.type === type,
      );
    expect(await condition('beta', 'ValidationSucceeded')).toMatchObject({ status: 'True' });
    expect(await condition('beta', 'Ready')).toMatchObject({ status: 'True' });
    expect(await condition('alpha', 'ValidationSucceeded')).toMatchObject({
      status: 'False',
      reason: 'Conflict',
      message: expect.stringMatching(/conflicts with NodeOverlay beta \(same weight 7\)/),
    });
    expect(await condition('alpha', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Conflict',
    });
    // Resolving the conflict (a higher weight) makes it Ready on the next pass.
    const alpha = await env.client.get('NodeOverlay', { name: 'alpha' });
    if (alpha === undefined) throw new Error('alpha missing');
    alpha.spec.weight = 8;
    await env.client.update('NodeOverlay', alpha);
    await env.controller.reconcile();
    expect(await condition('alpha', 'Ready')).toMatchObject({ status: 'True' });
  });

  it('consolidation compares overlaid prices: a node whose type an overlay made dear is replaced by a cheaper one', async () => {
    const env = await disruptionEnv({ loop: { nodeOverlay: true } });
    addWorkload(env, 'web', 1, { cpu: '500m' });
    expect(await settle(env)).toBe(true);
    const typeOf = async () =>
      (await env.client.list('Node')).map(
        (n) => n.metadata?.labels?.['node.kubernetes.io/instance-type'],
      );
    expect(await typeOf()).toEqual(['fake-it-0']);
    await env.client.create(
      'NodeOverlay',
      overlay('dear', { requirements: instanceType('fake-it-0'), price: '9' }),
    );
    await env.loop.runUntil(async () => (await typeOf()).join() === 'fake-it-1', 600);
    expect(await typeOf()).toEqual(['fake-it-1']);
    // Its options are the types cheaper than the overlaid 9 USD/hour: none of them overlaid.
    const replacement = (await env.client.list('NodeClaim'))[0];
    expect(replacement?.metadata.annotations?.[Annotations.PriceOverlayApplied]).toBeUndefined();
    env.loop.stop();
  });

  it('with the gate off the loop ignores overlays: the same node stays', async () => {
    const env = await disruptionEnv();
    addWorkload(env, 'web', 1, { cpu: '500m' });
    await env.client.create(
      'NodeOverlay',
      overlay('dear', { requirements: instanceType('fake-it-0'), price: '9' }),
    );
    expect(await settle(env)).toBe(true);
    await env.loop.runUntil(async () => false, 120);
    const nodes = await env.client.list('Node');
    expect(nodes.map((n) => n.metadata?.labels?.['node.kubernetes.io/instance-type'])).toEqual([
      'fake-it-0',
    ]);
    expect((await env.client.get('NodeOverlay', { name: 'dear' }))?.status).toBeUndefined();
    env.loop.stop();
  });
});
