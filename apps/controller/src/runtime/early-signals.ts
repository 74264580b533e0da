/**
 * SIGTERM and SIGINT before the operator (or the launcher) has its own handlers: without any
 * handler the kernel ends a process at once on these signals, so a signal while the binary
 * still loads its modules would kill it instead of stopping it. {@link trapEarlySignals} only
 * records them; the binary then exits 0 without starting, as nothing has started yet.
 */

/** Signals recorded until {@link EarlySignals.release}. */
export interface EarlySignals {
  /** The first signal received, if any. */
  readonly received: NodeJS.Signals | undefined;
  /** Removes the handlers (call once the real ones are installed). */
  release(): void;
}

/** Installs recording handlers for SIGTERM and SIGINT (see the module comment). */
export function trapEarlySignals(): EarlySignals {
  let received: NodeJS.Signals | undefined;
  const record = (signal: NodeJS.Signals) => (received ??= signal);
  process.on('SIGTERM', record);
  process.on('SIGINT', record);
  return {
    get received() {
      return received;
    },
    release() {
      process.off('SIGTERM', record);
      process.off('SIGINT', record);
    },
  };
}
