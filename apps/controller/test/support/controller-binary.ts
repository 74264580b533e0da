/**
 * The controller binary (src/main.ts, run from source through scripts/register-ts-hooks.mjs) as a
 * child process for the unit suite's startup tests, with a kubeconfig whose API server refuses
 * connections, so startup stays in its cache-sync wait.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { unusedPort } from './unused-port.js';

const controllerDir = fileURLToPath(new URL('../..', import.meta.url));
const hooks = fileURLToPath(new URL('../../scripts/register-ts-hooks.mjs', import.meta.url));
const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** Children still running after a test (one that failed) are killed. */
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
});

/** A kubeconfig whose API server is a closed local port. */
export async function unreachableKubeconfig(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'controller-unreachable.')), 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${await unusedPort()}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  return file;
}

/** The environment of a machine with no kubeconfig anywhere, outside a cluster. */
export function noKubeconfigEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'home.')) };
  delete env['KUBECONFIG'];
  delete env['KUBERNETES_SERVICE_HOST'];
  delete env['KUBERNETES_SERVICE_PORT'];
  delete env['MEMORY_LIMIT'];
  delete env['NODE_OPTIONS'];
  return env;
}

/** One JSON log line of the controller. */
export type LogLine = Record<string, unknown>;

/** A running controller binary. */
export interface ControllerBinary {
  /** The process the test started (the launcher, when `--memory-limit` relaunched it). */
  readonly pid: number;
  /** Every stdout line so far, parsed. */
  readonly logs: readonly LogLine[];
  readonly stderr: string;
  /** Resolves with the exit code, or the name of the signal that ended it. */
  readonly exited: Promise<number | string>;
  /** Resolves when stdout closes: every process writing to it (a relaunched child too) ended. */
  readonly stdoutClosed: Promise<void>;
  /** Resolves with the first log line matching; rejects when the process exits first. */
  waitForLog(match: (line: LogLine) => boolean): Promise<LogLine>;
  signal(signal: NodeJS.Signals): void;
}

/**
 * Starts the binary with `--provider sim`, ports 0 and `args`, in `env`. Its stdout lines are
 * parsed as JSON.
 */
export function runController(args: readonly string[], env: NodeJS.ProcessEnv): ControllerBinary {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@karpenter-ts/source',
      '--import',
      hooks,
      main,
      '--provider',
      'sim',
      '--metrics-port',
      '0',
      '--health-probe-port',
      '0',
      ...args,
    ],
    { cwd: controllerDir, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  const logs: LogLine[] = [];
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
    for (const w of waiters) w();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)),
  );
  const stdoutClosed = new Promise<void>((resolve) => child.stdout.once('close', resolve));
  return {
    pid: child.pid ?? -1,
    logs,
    get stderr() {
      return stderr;
    },
    exited,
    stdoutClosed,
    waitForLog(match) {
      return new Promise<LogLine>((resolve, reject) => {
        const check = () => {
          const found = logs.find(match);
          if (found === undefined) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
        void exited.then((code) =>
          reject(
            new Error(`exited (${code}) first; stderr: ${stderr}; logs: ${JSON.stringify(logs)}`),
          ),
        );
      });
    },
    signal: (signal) => child.kill(signal),
  };
}

/** Whether a process with this id exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}
