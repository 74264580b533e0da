import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../src/index.js';

/** Resolves after the microtask and timer queues have had a turn. */
const settle = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** Waits (polling) until `cond` holds; fails the test after 5 s of waiting. */
async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await settle(10);
  expect(cond()).toBe(true);
}

describe('work queue', () => {
  it('reconciles a key once however often it is added while waiting', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ name: 't', reconcile: async (k) => void seen.push(k) });
    q.add('a');
    q.add('a');
    q.add('b');
    q.start();
    await settle();
    expect(seen).toEqual(['a', 'b']);
  });

  it('never runs one key twice at once, and reruns it after if it was added meanwhile', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    const q = new WorkQueue({
      name: 't',
      reconcile: async () => {
        running += 1;
        runs += 1;
        maxRunning = Math.max(maxRunning, running);
        if (runs === 1) await new Promise<void>((r) => (release = r));
        running -= 1;
      },
    });
    q.start();
    q.add('a');
    await settle();
    q.add('a'); // while running
    q.add('a');
    release();
    await settle();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('retries a failing key with backoff and reports the error', async () => {
    const errors: number[] = [];
    let calls = 0;
    const q = new WorkQueue({
      name: 't',
      backoffBaseSeconds: 0.001,
      reconcile: async () => {
        calls += 1;
        if (calls < 3) throw new Error('boom');
      },
      onError: (_k, _e, retry) => errors.push(retry),
    });
    q.start();
    q.add('a');
    await waitFor(() => calls === 3);
    expect(errors).toEqual([0.001, 0.002]);
    await q.stop();
  });

  it('honours requeueAfter and drops scheduled keys on stop', async () => {
    let calls = 0;
    const q = new WorkQueue({
      name: 't',
      reconcile: async () => {
        calls += 1;
        return { requeueAfter: calls === 1 ? 0.01 : 3600 };
      },
    });
    q.start();
    q.add('a');
    await waitFor(() => calls === 2);
    await q.stop();
    q.add('a');
    await settle();
    expect(calls).toBe(2);
  });
});
