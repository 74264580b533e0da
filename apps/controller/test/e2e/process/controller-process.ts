/**
 * The real `karpenter-ts-controller` binary (src/main.ts, run from source) as a child process,
 * so tests can SIGKILL it the way a node crash or an OOM kill ends a pod: no shutdown hook, no
 * Lease release, nothing flushed. Its JSON log lines are parsed as they arrive (and appended to
 * `<KARPENTER_TS_E2E_LOGS>/<name>-<ms>.log` when that variable names a directory).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unusedPort } from '../../support/unused-port.js';

const controllerDir = fileURLToPath(new URL('../../..', import.meta.url));
const hooks = fileURLToPath(new URL('../../../scripts/register-ts-hooks.mjs', import.meta.url));
const main = fileURLToPath(new URL('../../../src/main.ts', import.meta.url));

/** One JSON log line of the controller (pino: `message`, `level`, `time`, `logger`, ...). */
export type LogLine = Record<string, unknown> & { message?: string; time?: string };

/** A running controller process. */
export interface ControllerProcess {
  readonly name: string;
  readonly pid: number;
  readonly metricsPort: number;
  /** Every parsed log line so far. */
  readonly logs: readonly LogLine[];
  /** Resolves with the exit code, or the signal name when killed. */
  readonly exited: Promise<number | string>;
  /** Resolves with the first log line (past or future) matching; rejects after `timeoutMs`. */
  waitForLog(what: string, match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** The Prometheus exposition of its metrics server. */
  metrics(): Promise<string>;
  /** SIGKILL: the process ends at once without any clean-up. Resolves when it is gone. */
  crash(): Promise<void>;
  /** SIGTERM (graceful shutdown); resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts the controller with `args` (plus free metrics and health ports) and `env` added to
 * this process's environment. Resolves once it logs that caches synced; rejects with its
 * output if it exits first or takes longer than 60 s.
 */
export async function startController(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ControllerProcess> {
  const metricsPort = await unusedPort();
  const healthPort = await unusedPort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=@karpenter-ts/source',
      '--import',
      hooks,
      main,
      ...args,
      '--metrics-port',
      String(metricsPort),
      '--health-probe-port',
      String(healthPort),
    ],
    { cwd: controllerDir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logs: LogLine[] = [];
  let stderr = '';
  const waiters = new Set<(line: LogLine) => void>();
  let partial = '';
  const logFile = process.env['KARPENTER_TS_E2E_LOGS']
    ? join(process.env['KARPENTER_TS_E2E_LOGS'], `${name}-${Date.now()}.log`)
    : undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (logFile !== undefined) appendFileSync(logFile, chunk);
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      if (text.trim() === '') continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { message: text, unparsed: true };
      }
      logs.push(line);
      for (const w of waiters) w(line);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)),
  );

  const waitForLog = (what: string, match: (line: LogLine) => boolean, timeoutMs: number) =>
    new Promise<LogLine>((resolve, reject) => {
      const seen = logs.find(match);
      if (seen !== undefined) return resolve(seen);
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `${name}: no log line "${what}" within ${timeoutMs / 1000} s\nstderr: ${stderr}\nlast logs: ${logs
              .slice(-10)
              .map((l) => JSON.stringify(l))
              .join('\n')}`,
          ),
        );
      }, timeoutMs);
      const waiter = (line: LogLine) => {
        if (!match(line)) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(line);
      };
      waiters.add(waiter);
    });

  const started = waitForLog('caches synced', (l) => l.message === 'caches synced', 60_000);
  const early = exited.then((code) => {
    throw new Error(`${name} exited (${code}) during startup:\n${stderr}`);
  });
  await Promise.race([started, early]);
  early.catch(() => {});

  const pid = child.pid ?? -1;
  return {
    name,
    pid,
    metricsPort,
    logs,
    exited,
    waitForLog,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
    async crash() {
      process.kill(pid, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGTERM');
      await exited;
    },
  };
}
