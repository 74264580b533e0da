import type { Node } from '@karpenter-ts/api';
import { Scheduler } from '@karpenter-ts/scheduling';
import { pod } from '@karpenter-ts/scheduling/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryKubeClient, SimKubeScheduler } from '../src/index.js';

function readyNode(name: string, cpu: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: {},
    status: {
      allocatable: { cpu, memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

describe('the kube-scheduler stand-in', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('retries unschedulable pods only after a Pod or Node changed, not on every pass', async () => {
    const client = new MemoryKubeClient();
    const solves = vi.spyOn(Scheduler.prototype, 'solve');
    const scheduler = new SimKubeScheduler(client);
    await client.create('Pod', pod({ name: 'big', requests: { cpu: '2' } }));

    const first = await scheduler.reconcile();
    expect(first.unschedulable).toEqual(['default/big']);
    const [marked] = await client.list('Pod');
    expect(marked?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }),
    );
    expect(solves).toHaveBeenCalledTimes(1);

    // Its own Unschedulable mark is not a change: the same input would give the same answer.
    const again = await scheduler.reconcile();
    expect(again).toEqual({ bound: new Map(), unschedulable: ['default/big'] });
    expect(solves).toHaveBeenCalledTimes(1);

    // A node too small changes nothing for the pod, but it is a Node event: retried.
    await client.create('Node', readyNode('small', '1'));
    expect((await scheduler.reconcile()).unschedulable).toEqual(['default/big']);
    expect(solves).toHaveBeenCalledTimes(2);

    await client.create('Node', readyNode('large', '4'));
    const bound = await scheduler.reconcile();
    expect([...bound.bound]).toEqual([['default/big', 'large']]);
    expect(solves).toHaveBeenCalledTimes(3);
  });
});
