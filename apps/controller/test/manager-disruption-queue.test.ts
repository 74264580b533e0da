/**
 * The manager runs the orchestration queue (the `disruption-queue` work queue) whenever a
 * disruption pass started a command. It used to compare the number of commands before and after
 * the pass, so a command that the queue finished while the pass started another left the count
 * unchanged: the new command was never carried out (its candidate stayed tainted
 * `karpenter.sh/disrupted` beside its launched replacement) until some later command woke the
 * queue. Seen on the real control plane (azure-drift.e2e.ts: the second of two drift commands
 * waited 2 min for the next NodeClass change).
 */
import { Writable } from 'node:stream';
import { SimCloudProvider, fakeInstanceTypes } from '@karpenter-ts/cloudprovider';
import { ManualClock, MemoryKubeClient, type QueuedCommand } from '@karpenter-ts/controllers';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, Manager, OperatorMetrics } from '../src/index.js';

let manager: Manager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

/** A promise and the function that resolves it. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('manager: disruption commands reach the orchestration queue', () => {
  it('runs the queue for a command started while the queue finished another', async () => {
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    manager = new Manager({
      client: new MemoryKubeClient(),
      cloudProvider: new SimCloudProvider({ instanceTypes: fakeInstanceTypes(4) }),
      clock: new ManualClock(),
      logger: createLogger({ level: 'error', outputPaths: ['stdout'], commit: 't', stream: quiet }),
      metrics: new OperatorMetrics({ version: 't', commit: 't' }),
    });
    // The disruption controller and its queue, reduced to their commands list.
    const a = { command: { method: 'drift' } } as unknown as QueuedCommand;
    const b = { command: { method: 'drift' } } as unknown as QueuedCommand;
    let commands: QueuedCommand[] = [];
    const secondPass = latch();
    const aDone = latch();
    const bSeen = latch();
    let passes = 0;
    const queueSaw: string[][] = [];
    const { disruption } = manager;
    disruption.queue.commands = () => commands;
    disruption.reconcile = async () => {
      passes++;
      if (passes === 1) {
        commands = [a]; // Starts A.
        return { requeueAfter: 0.01 };
      }
      if (passes === 2) {
        secondPass.open();
        await aDone.promise; // Meanwhile the queue finishes A...
        commands = [...commands, b]; // ...and this pass starts B.
      }
      return { requeueAfter: 3600 };
    };
    disruption.queue.reconcile = async () => {
      queueSaw.push(commands.map((c) => (c === a ? 'A' : 'B')));
      if (commands.includes(a)) {
        await secondPass.promise;
        commands = commands.filter((c) => c !== a); // A is done.
        aDone.open();
      }
      if (commands.includes(b)) bSeen.open();
      return {};
    };

    await manager.start();
    const seen = await Promise.race([
      bSeen.promise.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 2000)),
    ]);

    expect(seen, `queue passes saw ${JSON.stringify(queueSaw)}`).toBe(true);
  });
});
