/**
 * What the manager does with objects that existed before it started (a restart, or a replica
 * that wins the Lease): watches report only later changes, so without a start-up pass a pod left
 * pending by the previous leader would never be provisioned (issue 17).
 */
import { Writable } from 'node:stream';
import type { Node } from '@karpenter-ts/api';
import { SimCloudProvider, fakeInstanceTypes } from '@karpenter-ts/cloudprovider';
import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import { pod, unschedulablePod } from '@karpenter-ts/scheduling/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, Manager, OperatorMetrics } from '../src/index.js';

let manager: Manager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

/** Lets every pending callback and I/O turn run, so the queues finish what start() added. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Starts a manager on `client` (a clock that never moves, so no batch window closes) and returns
 * the ids the provisioner is triggered with: a pod's UID, or `node/<uid>` for a Node.
 */
async function startManager(client: MemoryKubeClient): Promise<string[]> {
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  manager = new Manager({
    client,
    cloudProvider: new SimCloudProvider({ instanceTypes: fakeInstanceTypes(4) }),
    clock: new ManualClock(),
    logger: createLogger({ level: 'error', outputPaths: ['stdout'], commit: 't', stream: quiet }),
    metrics: new OperatorMetrics({ version: 't', commit: 't' }),
  });
  const triggered: string[] = [];
  manager.provisioner.trigger = (id) => triggered.push(id);
  await manager.start();
  await settle();
  return triggered;
}

function node(name: string, disrupted: boolean): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: disrupted
      ? { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }
      : { taints: [] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

describe('manager start', () => {
  it('triggers provisioning for every pod that was already pending when it started', async () => {
    const client = new MemoryKubeClient();
    const pending = [
      await client.create('Pod', unschedulablePod({ requests: { cpu: '1' } })),
      await client.create('Pod', unschedulablePod({ requests: { cpu: '2' } })),
    ];
    // Not provisionable: bound to a node, or not yet tried by the kube-scheduler.
    const bound = unschedulablePod({ requests: { cpu: '1' } });
    bound.spec = { ...bound.spec, containers: bound.spec?.containers ?? [], nodeName: 'n1' };
    await client.create('Pod', bound);
    await client.create('Pod', pod({ requests: { cpu: '1' } }));

    const triggered = await startManager(client);

    expect(triggered.sort()).toEqual(pending.map((p) => p.metadata?.uid ?? '').sort());
  });

  it('triggers provisioning for a Node that was already tainted disrupted when it started', async () => {
    const client = new MemoryKubeClient();
    const disrupted = await client.create('Node', node('disrupted', true));
    await client.create('Node', node('healthy', false));

    const triggered = await startManager(client);

    expect(triggered).toEqual([`node/${disrupted.metadata?.uid}`]);
  });
});
