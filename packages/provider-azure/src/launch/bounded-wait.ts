/**
 * Bounded waits for ARM long-running operations. ARM finishes an accepted operation on its own,
 * but a launch must not wait for good on one that does not (an operation stuck behind another
 * client's, a lost poll, an emulator operation nobody polls): the wait is given up after a
 * deadline, the polling aborted, and the launch fails so the node claim lifecycle retries it.
 */

/** An operation was not done within its deadline (the operation itself may still be running). */
export class OperationTimeoutError extends Error {
  /** What was waited for, e.g. `network interface aks-x to be created`. */
  readonly what: string;
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number) {
    super(`waiting for ${what} timed out after ${timeoutMs / 1000} s`);
    this.name = 'OperationTimeoutError';
    this.what = what;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Runs `run` with an abort signal and waits at most `timeoutMs` for it: past that the signal is
 * aborted and OperationTimeoutError raised (a later failure of `run` is then ignored).
 */
export async function waitBounded<T>(
  what: string,
  timeoutMs: number,
  run: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new OperationTimeoutError(what, timeoutMs));
      controller.abort();
    }, timeoutMs);
  });
  const running = run(controller.signal);
  running.catch(() => undefined);
  try {
    return await Promise.race([running, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
