/**
 * The launcher of `--memory-limit` (the sizing is runtime/heap-limit.ts): V8's heap limit is
 * fixed at process start, so the binary starts itself once more as a child with
 * `--max-old-space-size` and from then on only relays:
 *
 * - stdin, stdout and stderr are the child's (inherited);
 * - SIGTERM and SIGINT are forwarded, so the controller shuts down gracefully; the child has its
 *   own process group, so a terminal's Ctrl-C reaches it once, through the launcher, rather than
 *   twice (a second signal ends the controller at once);
 * - an IPC channel closes when the launcher dies (even by SIGKILL, outside a container where
 *   nothing else would end the child); the controller then shuts down as on SIGTERM
 *   ({@link watchLauncher});
 * - the launcher ends as the child did: its exit code, or killed by the same signal.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { HEAP_SIZED_ENV } from './heap-limit.js';

/** Signals the launcher passes on to the controller. */
const Forwarded = ['SIGTERM', 'SIGINT'] as const;

/** How the child ended: an exit code, or the signal that killed it. */
export type ChildExit =
  | { readonly code: number; readonly signal: null }
  | { readonly code: null; readonly signal: NodeJS.Signals };

/** What {@link relaunchWithHeapLimit} starts. */
export interface RelaunchOptions {
  /** `--max-old-space-size` of the child, MiB. */
  readonly oldSpaceMiB: number;
  /** Default: this process's `process.execPath`, `process.execArgv`, script and arguments, env. */
  readonly execPath?: string;
  readonly execArgv?: readonly string[];
  /** The script and its arguments (`process.argv.slice(1)`). */
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Starts this program again with `--max-old-space-size=<oldSpaceMiB>` (and {@link HEAP_SIZED_ENV}
 * set, so it does not relaunch in turn), forwards SIGTERM and SIGINT to it while it runs, and
 * resolves with how it ended. Rejects when the child cannot be started (the spawn error).
 */
export function relaunchWithHeapLimit(options: RelaunchOptions): Promise<ChildExit> {
  const child = spawn(
    options.execPath ?? process.execPath,
    [
      ...(options.execArgv ?? process.execArgv),
      `--max-old-space-size=${options.oldSpaceMiB}`,
      ...(options.args ?? process.argv.slice(1)),
    ],
    {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...(options.env ?? process.env), [HEAP_SIZED_ENV]: String(options.oldSpaceMiB) },
      detached: true,
    },
  );
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const s of Forwarded) process.on(s, forward);
  const unforward = () => {
    for (const s of Forwarded) process.off(s, forward);
  };
  return new Promise<ChildExit>((resolve, reject) => {
    child.once('error', (err) => {
      unforward();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      unforward();
      resolve(signal !== null ? { code: null, signal } : { code: code ?? 1, signal: null });
    });
  });
}

/**
 * Ends this process as the child ended: sets its exit code, or re-raises the child's signal on
 * itself. A process cannot signal itself as PID 1 of a container (the kernel drops it), so the
 * exit code is set first to 128 + the signal's number, what a shell reports for that death.
 */
export function exitAsChild(exit: ChildExit): void {
  if (exit.signal === null) {
    process.exitCode = exit.code;
    return;
  }
  process.exitCode = 128 + (constants.signals[exit.signal] ?? 0);
  process.kill(process.pid, exit.signal);
}

/**
 * In the relaunched controller: when the launcher's IPC channel closes (the launcher is gone),
 * send ourselves SIGTERM, so the operator shuts down gracefully. Does nothing in a process that
 * was not started by {@link relaunchWithHeapLimit}. The channel does not keep the process alive.
 */
export function watchLauncher(): void {
  if (process.env[HEAP_SIZED_ENV] === undefined || process.channel === undefined) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
