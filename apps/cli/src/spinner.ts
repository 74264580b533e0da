/**
 * Progress feedback on stderr for runs that take more than a second. Off when stderr is not a
 * terminal (pipes, CI), so stdout stays clean for `--output json` and logs stay free of escapes.
 */
import ora, { type Ora } from 'ora';

/** A progress indicator; `update` changes the step text, `stop` clears it. */
export interface Progress {
  update(text: string): void;
  stop(): void;
}

/** Milliseconds before the spinner appears: quick runs never show it. */
const SHOW_AFTER_MS = 1000;

/**
 * Starts a spinner on stderr that becomes visible after one second, only when stderr is a TTY
 * and `CI` is unset. Long synchronous steps freeze its animation, so callers yield
 * ({@link nextTick}) between steps to let it redraw.
 */
export function startProgress(text: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY || process.env.CI) return { update: () => {}, stop: () => {} };
  let current = text;
  let spinner: Ora | undefined;
  const timer = setTimeout(() => {
    spinner = ora({ text: current, stream }).start();
  }, SHOW_AFTER_MS);
  timer.unref();
  return {
    update(next: string) {
      current = next;
      if (spinner) spinner.text = next;
    },
    stop() {
      clearTimeout(timer);
      spinner?.stop();
    },
  };
}

/** Yields to the event loop once, so timers (the spinner) can run between synchronous steps. */
export function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
