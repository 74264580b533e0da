/**
 * The NodeOverlay gate in the operator's manager: on, the overlay controller runs at start and on
 * overlay changes and writes each overlay's conditions, and the provisioner reads the overlaid
 * instance types; off (upstream's default), overlays are not read at all.
 */
import { Writable } from 'node:stream';
import type { NodeOverlay } from '@karpenter-ts/api';
import { SimCloudProvider, fakeInstanceTypes } from '@karpenter-ts/cloudprovider';
import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import { nodePool } from '@karpenter-ts/scheduling/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, Manager, OperatorMetrics } from '../src/index.js';

let manager: Manager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

const cheapIt2: NodeOverlay = {
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name: 'cheap-it-2' },
  spec: {
    requirements: [
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['fake-it-2'] },
    ],
    price: '0.001',
  },
};

async function start(nodeOverlay: boolean): Promise<MemoryKubeClient> {
  const client = new MemoryKubeClient();
  const pool = nodePool({ name: 'default' });
  pool.status = {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastTransitionTime: '2025-01-01T00:00:00Z',
        reason: 'Ready',
      },
    ],
  };
  await client.create('NodePool', pool);
  await client.create('NodeClass', {
    apiVersion: 'karpenter.test.sh/v1',
    kind: 'TestNodeClass',
    metadata: { name: 'default' },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'Ready',
        },
      ],
    },
  });
  await client.create('NodeOverlay', cheapIt2);
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  manager = new Manager({
    client,
    cloudProvider: new SimCloudProvider({
      instanceTypes: fakeInstanceTypes(4),
      nodeClasses: [{ group: 'karpenter.test.sh', kind: 'TestNodeClass' }],
    }),
    clock: new ManualClock(),
    logger: createLogger({ level: 'error', outputPaths: ['stdout'], commit: 't', stream: quiet }),
    metrics: new OperatorMetrics({ version: 't', commit: 't' }),
    nodeOverlay,
  });
  await manager.start();
  await settle();
  return client;
}

describe('manager NodeOverlay gate', () => {
  it('on: evaluates overlays at start, marks them Ready, and the provisioner sees overlaid prices', async () => {
    const client = await start(true);
    const stored = await client.get('NodeOverlay', { name: 'cheap-it-2' });
    expect(stored?.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['ValidationSucceeded', 'True'],
      ['Ready', 'True'],
    ]);
    const inputs = await manager?.provisioner.schedulingInputs();
    const it2 = inputs?.instanceTypes.get('default')?.find((t) => t.name === 'fake-it-2');
    expect(it2?.offerings.every((o) => o.price === 0.001)).toBe(true);
  });

  it('off: overlays have no effect and get no status', async () => {
    const client = await start(false);
    expect((await client.get('NodeOverlay', { name: 'cheap-it-2' }))?.status).toBeUndefined();
    const inputs = await manager?.provisioner.schedulingInputs();
    const it2 = inputs?.instanceTypes.get('default')?.find((t) => t.name === 'fake-it-2');
    expect(it2?.offerings.some((o) => o.price === 0.001)).toBe(false);
  });
});
