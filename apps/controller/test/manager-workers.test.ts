/**
 * The manager's queues reconcile as many keys at once as their workers allow (runtime/workers.ts):
 * a NodeClaim launch holds its lifecycle worker for the whole cloud create, so the nodeclaim
 * queue's workers are how many machines launch at once.
 */
import { Writable } from 'node:stream';
import type { NodeClaim } from '@karpenter-ts/api';
import { SimCloudProvider, fakeInstanceTypes, systemClock } from '@karpenter-ts/cloudprovider';
import { MemoryKubeClient } from '@karpenter-ts/controllers';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, Manager, OperatorMetrics, type ManagerOptions } from '../src/index.js';
import { nodeClaim } from './support/node-claim.js';

/** The sim cloud, except that each create waits until the test releases it. */
class HeldCreates extends SimCloudProvider {
  readonly held: (() => void)[] = [];
  #waiters: (() => void)[] = [];

  override async create(nodeClaim: NodeClaim): Promise<NodeClaim> {
    await new Promise<void>((release) => {
      this.held.push(release);
      for (const w of this.#waiters) w();
    });
    return super.create(nodeClaim);
  }

  /** Resolves once `n` creates are waiting. */
  waitForHeld(n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.held.length < n) return;
        this.#waiters = this.#waiters.filter((w) => w !== check);
        resolve();
      };
      this.#waiters.push(check);
      check();
    });
  }
}

/** Lets every pending callback and I/O turn run, so work the queue would start has started. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

let manager: Manager | undefined;
let cloud: HeldCreates | undefined;
afterEach(async () => {
  for (const release of cloud?.held ?? []) release();
  await manager?.stop();
  manager = undefined;
});

async function startManager(claims: number, workers?: ManagerOptions['workers']) {
  const client = new MemoryKubeClient();
  for (let i = 0; i < claims; i++)
    await client.create(
      'NodeClaim',
      nodeClaim(`claim-${i}`, {
        nodePool: 'default',
        nodeClassRef: { group: 'karpenter.sim', kind: 'SimNodeClass', name: 'default' },
      }),
    );
  cloud = new HeldCreates({ instanceTypes: fakeInstanceTypes(4) });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  manager = new Manager({
    client,
    cloudProvider: cloud,
    clock: systemClock,
    logger: createLogger({ level: 'error', outputPaths: ['stdout'], commit: 't', stream: quiet }),
    metrics: new OperatorMetrics({ version: 't', commit: 't' }),
    ...(workers !== undefined ? { workers } : {}),
  });
  await manager.start();
  return cloud;
}

describe('manager workers', () => {
  it('launches 12 NodeClaims at once at one core, as upstream (1000 lifecycle workers), not 10 at a time', async () => {
    const held = await startManager(12);
    await held.waitForHeld(12);
    expect(held.held).toHaveLength(12);
  });

  it('launches no more NodeClaims at once than the nodeclaim queue has workers', async () => {
    const held = await startManager(5, { nodeclaim: 3 });
    await held.waitForHeld(3);
    await settle();
    expect(held.held).toHaveLength(3);
    // A finished launch frees its worker for the next NodeClaim.
    held.held[0]?.();
    await held.waitForHeld(4);
    await settle();
    expect(held.held).toHaveLength(4);
  });
});
