import type { Pod } from '@karpenter-ts/api';
import {
  fakeInstanceTypes,
  SimCloudProvider,
  type InstanceType,
} from '@karpenter-ts/cloudprovider';
import { Scheduler } from '@karpenter-ts/scheduling';
import { unschedulablePods } from '@karpenter-ts/scheduling/testing';
import { describe, expect, it } from 'vitest';
import { ControllerLoop, isTrue, ManualClock, MemoryKubeClient } from '../src/index.js';
import { nodeClass, readyNodePool, TestNodeClass } from './helpers.js';

/** The pods of a Deployment's ReplicaSet, all marked Unschedulable by kube-scheduler. */
function deploymentPods(name: string, replicas: number, requests: Record<string, string>): Pod[] {
  return unschedulablePods(replicas, { labels: { app: name }, requests, ownerKind: 'ReplicaSet' });
}

describe('end to end in memory', () => {
  it("turns a Deployment's 100 pending pods into registered nodes that hold them all, with as many nodes as the Scheduler alone plans", async () => {
    const clock = new ManualClock();
    const client = new MemoryKubeClient({ clock });
    const catalog = fakeInstanceTypes(20);
    const cloud = new SimCloudProvider({
      instanceTypes: catalog,
      clock,
      nodeClasses: [TestNodeClass],
    });
    const pool = readyNodePool();
    await client.create('NodePool', pool);
    await client.create('NodeClass', nodeClass());
    const pods = deploymentPods('web', 100, { cpu: '900m', memory: '1Gi' });
    for (const p of pods) await client.create('Pod', p);

    const loop = new ControllerLoop({
      client,
      cloudProvider: cloud,
      clock,
      provisioner: { solver: 'ts' },
    });
    await loop.start();
    const allBound = async () => (await client.list('Pod')).every((p) => p.spec?.nodeName);
    expect(await loop.runUntil(allBound, 120)).toBe(true);
    loop.stop();

    const nodes = await client.list('Node');
    const claims = await client.list('NodeClaim');
    expect(claims.every((c) => isTrue(c, 'Initialized'))).toBe(true);
    expect(nodes).toHaveLength(claims.length);
    expect(cloud.instances()).toHaveLength(claims.length);

    // Every node holds what was bound to it.
    for (const n of nodes) {
      const bound = (await client.list('Pod', { nodeName: n.metadata?.name ?? '' })).length;
      expect(bound).toBeGreaterThan(0);
    }

    const plan = new Scheduler<InstanceType>({
      nodePools: [pool],
      instanceTypes: new Map([['default', catalog]]),
      solver: 'ts',
    }).solve(deploymentPods('web', 100, { cpu: '900m', memory: '1Gi' }));
    expect(plan.podErrors.size).toBe(0);
    expect(claims).toHaveLength(plan.newNodeClaims.length);
  });

  it('replaces a node claim the cloud has no capacity for and still places every pod', async () => {
    const clock = new ManualClock();
    const client = new MemoryKubeClient({ clock });
    const catalog = fakeInstanceTypes(10);
    const cloud = new SimCloudProvider({
      instanceTypes: catalog,
      clock,
      nodeClasses: [TestNodeClass],
    });
    cloud.injectInsufficientCapacity({ zone: 'test-zone-1' });
    await client.create('NodePool', readyNodePool());
    await client.create('NodeClass', nodeClass());
    for (const p of deploymentPods('api', 10, { cpu: '1' })) await client.create('Pod', p);
    const loop = new ControllerLoop({
      client,
      cloudProvider: cloud,
      clock,
      provisioner: { solver: 'ts' },
    });
    await loop.start();
    const allBound = async () => (await client.list('Pod')).every((p) => p.spec?.nodeName);
    expect(await loop.runUntil(allBound, 300)).toBe(true);
    loop.stop();
    expect(cloud.instances().every((i) => i.zone !== 'test-zone-1')).toBe(true);
    expect(client.events.some((e) => e.reason === 'InsufficientCapacityError')).toBe(true);
  });
});
