import { ManualClock, MemoryKubeClient } from '@karpenter-ts/controllers';
import { SimCloudProvider, kwokInstanceTypes } from '@karpenter-ts/cloudprovider';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Manager, OperatorMetrics } from '../src/index.js';
import { startPeriodicTasks, type PeriodicTask } from '../src/runtime/periodic-tasks.js';

/** A logger that records the error lines of every child. */
function recordingLogger() {
  const errors: { logger: unknown; fields: Record<string, unknown>; message: string }[] = [];
  return {
    errors,
    child: (bindings: Record<string, unknown>) => ({
      error: (fields: Record<string, unknown>, message: string) =>
        void errors.push({ logger: bindings['logger'], fields, message }),
    }),
  };
}

/** Lets pending promise callbacks (a run's then/finally) run. */
const flush = () => vi.advanceTimersByTimeAsync(0);

afterEach(() => {
  vi.useRealTimers();
});

describe('periodic tasks', () => {
  it('run once at start, then every interval', async () => {
    vi.useFakeTimers();
    let runs = 0;
    const stop = startPeriodicTasks(
      [{ name: 'gc', intervalSeconds: 120, run: async () => void (runs += 1) }],
      recordingLogger(),
    );
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(119_000);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(240_000);
    expect(runs).toBe(4);
    stop();
  });

  it('skip a tick while the previous run of the same task is still going', async () => {
    vi.useFakeTimers();
    let runs = 0;
    let finish!: () => void;
    const task: PeriodicTask = {
      name: 'slow',
      intervalSeconds: 1,
      run: () => {
        runs += 1;
        return runs === 1 ? new Promise<void>((r) => (finish = r)) : Promise.resolve();
      },
    };
    const stop = startPeriodicTasks([task], recordingLogger());
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(1);
    finish();
    await flush();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    stop();
  });

  it('log a failed run under the task name and run again at the next tick', async () => {
    vi.useFakeTimers();
    const logger = recordingLogger();
    let runs = 0;
    const stop = startPeriodicTasks(
      [
        {
          name: 'azure.garbagecollection',
          intervalSeconds: 60,
          run: async () => {
            runs += 1;
            if (runs === 1) throw new Error('ARM list failed: HTTP 503');
          },
        },
      ],
      logger,
    );
    await flush();
    expect(logger.errors).toEqual([
      {
        logger: 'controller.azure.garbagecollection',
        fields: { error: 'Error: ARM list failed: HTTP 503' },
        message: 'periodic task failed',
      },
    ]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toBe(2);
    expect(logger.errors).toHaveLength(1);
    stop();
  });

  it('run no more once stopped', async () => {
    vi.useFakeTimers();
    let runs = 0;
    const stop = startPeriodicTasks(
      [{ name: 'kwok', intervalSeconds: 1, run: async () => void (runs += 1) }],
      recordingLogger(),
    );
    stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
  });

  it('tell each task to stop, so a run blocked in a long wait returns', async () => {
    vi.useFakeTimers();
    let abort!: () => void;
    let stopped = 0;
    const ended: string[] = [];
    const task: PeriodicTask = {
      name: 'aws.interruption',
      intervalSeconds: 1,
      run: () =>
        new Promise<void>((r) => (abort = r)).then(() => void ended.push('returned at stop')),
      stop: () => {
        stopped += 1;
        abort();
      },
    };
    const stop = startPeriodicTasks([task], recordingLogger());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(ended).toEqual([]);
    stop();
    await flush();
    expect(stopped).toBe(1);
    expect(ended).toEqual(['returned at stop']);
  });

  it('the manager runs each periodic task as soon as it starts, not one interval later', async () => {
    const clock = new ManualClock();
    const client = new MemoryKubeClient({ clock });
    let runs = 0;
    const manager = new Manager({
      client,
      cloudProvider: new SimCloudProvider({ instanceTypes: kwokInstanceTypes(), clock }),
      clock,
      logger: pino({ level: 'silent' }),
      metrics: new OperatorMetrics({ version: 'test', commit: 'test' }),
      // An hour: without the run at start, nothing would run during this test.
      periodic: [{ name: 'gc', intervalSeconds: 3600, run: async () => void (runs += 1) }],
    });
    await manager.start();
    try {
      expect(runs).toBe(1);
    } finally {
      await manager.stop();
    }
  });
});
