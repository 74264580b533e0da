/**
 * A NodeClass change reaches the drift of the node claims launched from it at once, as upstream's
 * NodeClassEventHandler on the nodeclaim disruption controller: without it a new AKS node image
 * (the AKSNodeClass's `status.images`) or a changed `imageFamily` was seen only at the claims'
 * next 5-minute drift check (azure-drift.e2e.ts waited minutes for `Drifted`).
 */
import { Writable } from 'node:stream';
import type { NodeClaim } from '@karpenter-ts/api';
import { SimCloudProvider, SimNodeClassKind, fakeInstanceTypes } from '@karpenter-ts/cloudprovider';
import { ManualClock, MemoryKubeClient, type NodeClassObject } from '@karpenter-ts/controllers';
import { nodePool } from '@karpenter-ts/scheduling/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, Manager, OperatorMetrics } from '../src/index.js';

let manager: Manager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

/** Lets every pending callback and I/O turn run, so the queues finish what was added. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

const ready = {
  type: 'Ready',
  status: 'True' as const,
  lastTransitionTime: '2025-01-01T00:00:00Z',
};

function simNodeClass(name: string): NodeClassObject {
  return {
    apiVersion: `${SimNodeClassKind.group}/v1`,
    kind: SimNodeClassKind.kind,
    metadata: { name },
    spec: { image: 'v1' },
    status: { conditions: [ready] },
  };
}

/** A launched NodeClaim of pool `default` on NodeClass `nodeClass`. */
function launchedClaim(name: string, nodeClass: string): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      nodeClassRef: { ...SimNodeClassKind, name: nodeClass },
      requirements: [],
    },
    status: {
      providerID: `sim:///test-zone-1/${name}`,
      conditions: [{ ...ready, type: 'Launched' }],
    },
  };
}

function drifted(nc: NodeClaim | undefined): string | undefined {
  return nc?.status?.conditions?.find((c) => c.type === 'Drifted' && c.status === 'True')?.reason;
}

describe('manager: NodeClass events and node claim drift', () => {
  it('rechecks the drift of the node claims of a NodeClass when it changes, and only theirs', async () => {
    const client = new MemoryKubeClient();
    const cloud = new SimCloudProvider({ instanceTypes: fakeInstanceTypes(4) });
    await client.create('NodeClass', simNodeClass('a'));
    await client.create('NodeClass', simNodeClass('b'));
    const pool = nodePool({ name: 'default' });
    pool.spec.template.spec.nodeClassRef = { ...SimNodeClassKind, name: 'a' };
    await client.create('NodePool', pool);
    await client.create('NodeClaim', launchedClaim('on-a', 'a'));
    await client.create('NodeClaim', launchedClaim('on-b', 'b'));
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    manager = new Manager({
      client,
      cloudProvider: cloud,
      clock: new ManualClock(),
      logger: createLogger({ level: 'error', outputPaths: ['stdout'], commit: 't', stream: quiet }),
      metrics: new OperatorMetrics({ version: 't', commit: 't' }),
    });
    await manager.start();
    await settle();
    expect(drifted(await client.get('NodeClaim', { name: 'on-a' }))).toBeUndefined();

    // The provider now reports both as drifted (say, NodeClass `a`'s image moved); only the
    // claims of the NodeClass that changed are looked at again before their 5-minute recheck.
    cloud.setDrifted('on-a', 'ImageDrift');
    cloud.setDrifted('on-b', 'ImageDrift');
    const a = (await client.get('NodeClass', {
      name: 'a',
      nodeClass: SimNodeClassKind,
    })) as NodeClassObject;
    a.status = { ...a.status, images: ['v2'] };
    await client.updateStatus('NodeClass', a);
    await settle();

    expect(drifted(await client.get('NodeClaim', { name: 'on-a' }))).toBe('ImageDrift');
    expect(drifted(await client.get('NodeClaim', { name: 'on-b' }))).toBeUndefined();
  });
});
