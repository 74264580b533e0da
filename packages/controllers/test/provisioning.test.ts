import { Annotations, Labels, nodePoolHash, NodePoolHashVersion } from '@karpenter-ts/api';
import { createInstanceType, createOffering, type InstanceType } from '@karpenter-ts/cloudprovider';
import { Requirement, Requirements } from '@karpenter-ts/scheduling';
import { unschedulablePod, unschedulablePods } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { apply, provision, provisionNodes, readyNodePool, testEnv } from './helpers.js';

describe('Provisioner', () => {
  it('launches a node claim for a pending pod after the batch window', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const pod = (await env.client.list('Pod'))[0];
    env.provisioner.trigger(pod?.metadata?.uid ?? '');
    const before = await env.provisioner.reconcile();
    expect(before.requeueAfter).toBe(1);
    expect(await env.client.list('NodeClaim')).toHaveLength(0);
    env.clock.advance(1);
    await env.provisioner.reconcile();
    expect(await env.client.list('NodeClaim')).toHaveLength(1);
  });

  it('keeps extending the window while new pods arrive, up to the max duration', async () => {
    const env = await testEnv();
    // A new pod every 0.9 s keeps the 1 s idle window open...
    for (let i = 0; i < 11; i++) {
      env.provisioner.trigger(`pod-${i}`);
      env.clock.advance(0.9);
      expect(env.provisioner.batcher.secondsUntilClosed()).toBeGreaterThan(0);
    }
    // ...until 10 s after the first trigger, however many keep coming.
    env.provisioner.trigger('pod-late');
    env.clock.advance(0.1);
    expect(env.provisioner.batcher.secondsUntilClosed()).toBe(0);
  });

  it('does not extend the window for a pod it has already seen', async () => {
    const env = await testEnv();
    env.provisioner.trigger('a');
    env.clock.advance(0.6);
    env.provisioner.trigger('a');
    expect(env.provisioner.batcher.secondsUntilClosed()).toBeCloseTo(0.4, 6);
  });

  it('reads the pending pods from the client’s shared view where it has one, else copies them', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [stored] = env.client.view('Pod');
    // The same unchanged objects on every pass, so the pod data cache finds them again.
    const [first] = await env.provisioner.pendingPods(false);
    const [second] = await env.provisioner.pendingPods(false);
    expect(first).toBe(stored);
    expect(second).toBe(stored);
    Object.defineProperty(env.client, 'view', { value: undefined });
    const [copy] = await env.provisioner.pendingPods(false);
    expect(copy).not.toBe(stored);
    expect(copy).toEqual(stored);
  });

  it('waits while a node claim has no provider ID (state not synced)', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    await provision(env);
    expect(await env.client.list('NodeClaim')).toHaveLength(1);
    await apply(env, unschedulablePod({ requests: { cpu: '1' } }));
    expect(await env.cluster.synced(env.client)).toBe(false);
    env.provisioner.trigger('another');
    env.clock.advance(1);
    expect((await env.provisioner.reconcile()).requeueAfter).toBe(1);
    expect(await env.client.list('NodeClaim')).toHaveLength(1);
    expect(env.provisioner.batcher.empty()).toBe(false);
  });

  it('builds the node claim from the NodePool: name, owner, labels, annotations, requirements, requests', async () => {
    const env = await testEnv();
    const pool = readyNodePool({
      name: 'general',
      labels: { team: 'a' },
      requirements: [
        { key: 'custom', operator: 'In', values: ['x'] },
        { key: Labels.CapacityType, operator: 'In', values: ['spot', 'on-demand'] },
      ],
      taints: [{ key: 'dedicated', value: 'a', effect: 'NoSchedule' }],
      terminationGracePeriod: '1h',
    });
    await apply(
      env,
      pool,
      unschedulablePod({
        requests: { cpu: '1500m', memory: '1Gi' },
        tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      }),
    );
    const [nc] = await provision(env);
    const stored = await env.client.get('NodePool', { name: 'general' });
    expect(nc?.metadata.name).toMatch(/^general-/);
    expect(nc?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        name: 'general',
        uid: stored?.metadata.uid,
        blockOwnerDeletion: true,
      },
    ]);
    expect(nc?.metadata.labels).toEqual({
      team: 'a',
      custom: 'x',
      [Labels.NodePool]: 'general',
      'karpenter.test.sh/testnodeclass': 'default',
    });
    expect(nc?.metadata.annotations?.[Annotations.NodePoolHash]).toBe(nodePoolHash(pool));
    expect(nc?.metadata.annotations?.[Annotations.NodePoolHashVersion]).toBe(NodePoolHashVersion);
    expect(nc?.spec.taints).toEqual([{ key: 'dedicated', value: 'a', effect: 'NoSchedule' }]);
    expect(nc?.spec.terminationGracePeriod).toBe('1h');
    expect(nc?.spec.resources?.requests).toMatchObject({ cpu: '1500m', memory: '1Gi', pods: '1' });
    const keys = nc?.spec.requirements.map((r) => r.key) ?? [];
    expect(keys).toContain(Labels.InstanceType);
    expect(keys).not.toContain(Labels.Hostname);
    expect(keys).not.toContain(Labels.Registered);
    const types = nc?.spec.requirements.find((r) => r.key === Labels.InstanceType)?.values ?? [];
    // fake-it-0 (1 cpu) cannot hold 1.5 cpu; every bigger type can.
    expect(types).not.toContain('fake-it-0');
    expect(types).toContain('fake-it-1');
  });

  it('keeps at most the 600 cheapest instance types on a node claim', async () => {
    const many: InstanceType[] = Array.from({ length: 700 }, (_, i) =>
      createInstanceType({
        name: `t-${String(i).padStart(3, '0')}`,
        requirements: new Requirements(
          Requirement.create(Labels.InstanceType, 'In', [`t-${String(i).padStart(3, '0')}`]),
          Requirement.create(Labels.Arch, 'In', ['amd64']),
          Requirement.create(Labels.OS, 'In', ['linux']),
          Requirement.create(Labels.TopologyZone, 'In', ['z1']),
          Requirement.create(Labels.CapacityType, 'In', ['on-demand']),
        ),
        offerings: [createOffering({ zone: 'z1', capacityType: 'on-demand', price: 1 + i / 100 })],
        capacity: { cpu: 4000, memory: 8 * 1024 ** 3, pods: 110 },
      }),
    );
    const env = await testEnv({ instanceTypes: many });
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [nc] = await provision(env);
    const types = nc?.spec.requirements.find((r) => r.key === Labels.InstanceType)?.values ?? [];
    expect(types).toHaveLength(600);
    expect(types).toContain('t-000');
    expect(types).not.toContain('t-600');
  });

  it('narrows the capacity type to what the instance types offer', async () => {
    const onDemandOnly: InstanceType = createInstanceType({
      name: 'od',
      requirements: new Requirements(
        Requirement.create(Labels.InstanceType, 'In', ['od']),
        Requirement.create(Labels.Arch, 'In', ['amd64']),
        Requirement.create(Labels.OS, 'In', ['linux']),
        Requirement.create(Labels.TopologyZone, 'In', ['z1']),
        Requirement.create(Labels.CapacityType, 'In', ['on-demand']),
      ),
      offerings: [createOffering({ zone: 'z1', capacityType: 'on-demand', price: 1 })],
      capacity: { cpu: 4000, memory: 8 * 1024 ** 3, pods: 110 },
    });
    const env = await testEnv({ instanceTypes: [onDemandOnly] });
    await apply(
      env,
      readyNodePool({
        requirements: [{ key: Labels.CapacityType, operator: 'In', values: ['spot', 'on-demand'] }],
      }),
      unschedulablePod({ requests: { cpu: '1' } }),
    );
    const [nc] = await provision(env);
    expect(nc?.spec.requirements.find((r) => r.key === Labels.CapacityType)?.values).toEqual([
      'on-demand',
    ]);
  });

  it('ignores NodePools that are not Ready', async () => {
    const env = await testEnv();
    const pool = readyNodePool();
    pool.status = {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'NodeClassNotReady',
        },
      ],
    };
    await apply(env, pool, unschedulablePod({ requests: { cpu: '1' } }));
    expect(await provision(env)).toHaveLength(0);
    expect(env.client.events.some((e) => e.reason === 'FailedScheduling')).toBe(true);
  });

  it('launches from the heaviest NodePool first', async () => {
    const env = await testEnv();
    await apply(
      env,
      readyNodePool({ name: 'light', weight: 10 }),
      readyNodePool({ name: 'heavy', weight: 50 }),
      unschedulablePod({ requests: { cpu: '1' } }),
    );
    const [nc] = await provision(env);
    expect(nc?.metadata.labels?.[Labels.NodePool]).toBe('heavy');
  });

  it('reports a pod that selects a restricted label instead of provisioning for it', async () => {
    const env = await testEnv();
    await apply(
      env,
      readyNodePool(),
      unschedulablePod({ nodeSelector: { [Labels.Hostname]: 'somewhere' } }),
    );
    expect(await provision(env)).toHaveLength(0);
    const event = env.client.events.find((e) => e.reason === 'FailedScheduling');
    expect(event?.message).toMatch(/kubernetes.io\/hostname.*restricted/);
  });

  it('does not launch a second node claim for pods an in-flight node claim already covers', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), ...unschedulablePods(3, { requests: { cpu: '1' } }));
    await provision(env);
    // Launch, so the state is synced and the in-flight claim is an existing node for the scheduler.
    for (const nc of await env.client.list('NodeClaim'))
      await env.lifecycle.reconcile(nc.metadata.name ?? '');
    env.provisioner.trigger('retrigger');
    env.clock.advance(1);
    await env.provisioner.reconcile();
    expect(await env.client.list('NodeClaim')).toHaveLength(1);
    expect(
      env.client.events.filter((e) => e.reason === 'Nominated' && /node\//.test(e.message)),
    ).toHaveLength(3);
  });

  it('rechecks NodePool limits at create time', async () => {
    const env = await testEnv();
    const pool = readyNodePool({ limits: { cpu: '4' } });
    await apply(env, pool, unschedulablePod({ requests: { cpu: '1' } }));
    const { results, pools } = await env.provisioner.schedule();
    expect(results.newNodeClaims).toHaveLength(1);
    // Capacity registered by someone else between scheduling and create uses up the limit.
    await apply(env, unschedulablePod({ requests: { cpu: '3500m' } }));
    await provisionNodes(env);
    const before = (await env.client.list('NodeClaim')).length;
    const { created, notCreated } = await env.provisioner.createNodeClaims(results, pools);
    expect(created).toHaveLength(0);
    expect(notCreated[0]?.reason).toMatch(/limit exceeded: cpu/);
    expect(await env.client.list('NodeClaim')).toHaveLength(before);
  });

  it('provisions for pods of a node being deleted', async () => {
    const env = await testEnv();
    await apply(env, readyNodePool(), unschedulablePod({ requests: { cpu: '1' } }));
    const [n] = await provisionNodes(env);
    const running = (await env.client.list('Pod'))[0];
    await env.client.bind(
      { name: running?.metadata?.name ?? '', namespace: 'default' },
      n?.metadata?.name ?? '',
    );
    env.cluster.markForDeletion(n?.metadata?.name ?? '');
    const { results } = await env.provisioner.schedule();
    expect(results.newNodeClaims).toHaveLength(1);
    expect(results.newNodeClaims[0]?.pods.map((p) => p.metadata?.name)).toEqual([
      running?.metadata?.name,
    ]);
  });
});
