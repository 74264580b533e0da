/**
 * Periodic tasks of the manager (the kwok-like kubelets' sync, Azure garbage collection): each
 * runs once as soon as the manager starts leading, then every `intervalSeconds`, as upstream's
 * singleton controllers reconcile at start and then on their period. A run never overlaps the
 * previous run of the same task (a tick that finds it still running is skipped), and a failed
 * run is logged and retried at the next tick.
 */
import type { PeriodicTask } from '@karpenter-ts/controllers';

export type { PeriodicTask } from '@karpenter-ts/controllers';

/** Where the task runner reports failures (a pino logger fits). */
export interface PeriodicTaskLogger {
  child(bindings: Record<string, unknown>): {
    error(fields: Record<string, unknown>, message: string): void;
  };
}

/**
 * Starts every task now (first run at once, the rest on its interval) and returns the function
 * that stops them: no tick fires after it, each task's `stop` is called (a long wait returns),
 * and a run already in progress otherwise finishes on its own.
 */
export function startPeriodicTasks(
  tasks: readonly PeriodicTask[],
  logger: PeriodicTaskLogger,
): () => void {
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  for (const task of tasks) {
    const log = logger.child({ logger: `controller.${task.name}` });
    let running = false;
    const tick = () => {
      if (running || stopped) return;
      running = true;
      task
        .run()
        .catch((err: unknown) =>
          log.error(
            { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
            'periodic task failed',
          ),
        )
        .finally(() => (running = false));
    };
    timers.push(setInterval(tick, task.intervalSeconds * 1000));
    tick();
  }
  return () => {
    stopped = true;
    for (const t of timers) clearInterval(t);
    for (const task of tasks) task.stop?.();
  };
}
