/**
 * What a user sees when the controller cannot reach a cluster: no kubeconfig at all ends the
 * process at once with one error line; an unreachable API server is logged on every failed
 * attempt and, after the cache-sync timeout, ends startup with an error naming the cause.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, parseOptions, startOperator } from '../src/index.js';

const controllerDir = fileURLToPath(new URL('..', import.meta.url));
const hooks = fileURLToPath(new URL('../scripts/register-ts-hooks.mjs', import.meta.url));
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** Children still running after a test (one that failed) are killed. */
const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
});

/** A local TCP port nothing listens on (connections to it are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A kubeconfig whose API server is a closed local port. */
async function unreachableKubeconfig(): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'controller-unreachable.')), 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${await closedPort()}", insecure-skip-tls-verify: true}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
  return file;
}

/** The environment of a machine with no kubeconfig anywhere, outside a cluster. */
function noKubeconfigEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'home.')) };
  delete env['KUBECONFIG'];
  delete env['KUBERNETES_SERVICE_HOST'];
  delete env['KUBERNETES_SERVICE_PORT'];
  return env;
}

/** The controller binary (from source) as a child process; its stdout lines parsed as JSON. */
function runController(args: readonly string[], env: NodeJS.ProcessEnv) {
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
  const logs: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') logs.push(JSON.parse(line));
    for (const w of waiters) w();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)),
  );
  return {
    logs,
    get stderr() {
      return stderr;
    },
    exited,
    /** Resolves with the first log line matching; rejects when the process exits first. */
    waitForLog(match: (line: Record<string, unknown>) => boolean) {
      return new Promise<Record<string, unknown>>((resolve, reject) => {
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
    kill: () => child.kill('SIGKILL'),
  };
}

describe('controller startup without a reachable cluster', () => {
  it('exits 1 with one error line, no stack trace, when there is no kubeconfig and no in-cluster config', async () => {
    const controller = runController([], noKubeconfigEnv());
    expect(await controller.exited).toBe(1);
    expect(controller.stderr).toBe(
      'karpenter-ts-controller: error: no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster\n',
    );
  }, 60_000);

  it('logs each failed list of an unreachable API server as a warning with the error, not a stack trace', async () => {
    const controller = runController(
      ['--kubeconfig', await unreachableKubeconfig()],
      noKubeconfigEnv(),
    );
    try {
      // Two failures of the same cache: attempts after the first are logged too.
      const pods = (l: Record<string, unknown>) =>
        l['message'] === 'listing or watching failed; retrying' && l['resource'] === 'pods.core';
      await controller.waitForLog((l) => controller.logs.filter(pods).length >= 2 && pods(l));
      const warnings = controller.logs.filter(pods);
      for (const line of warnings) {
        expect(line['level']).toBe('WARN');
        expect(line['error']).toMatch(/ECONNREFUSED/);
        expect(line).not.toHaveProperty('stack');
        expect(String(line['error'])).not.toMatch(/\n\s+at /);
      }
      expect(controller.stderr).toBe('');
    } finally {
      controller.kill();
      await controller.exited;
    }
  }, 60_000);

  it('fails startup after the cache-sync timeout, naming the unsynced caches and the last error', async () => {
    const parsed = parseOptions(
      [
        '--provider',
        'sim',
        '--kubeconfig',
        await unreachableKubeconfig(),
        '--metrics-port',
        '0',
        '--health-probe-port',
        '0',
      ],
      {},
    );
    if (parsed.kind !== 'run') throw new Error(parsed.output);
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger({ level: 'info', outputPaths: ['stdout'], commit: 't', stream });
    const started = startOperator(parsed.options, {
      version: 't',
      logger,
      handleSignals: false,
      cacheSyncTimeoutSeconds: 2,
    });
    await expect(started).rejects.toThrow(
      /^caches not synced after 2000 ms: .*pods\.core.* \(is the API server reachable\?\); last error \([a-z.]+\): .*ECONNREFUSED/,
    );
    expect(lines.find((l) => l['message'] === 'connecting to the API server')).toMatchObject({
      syncTimeoutSeconds: 2,
    });
    expect(
      lines.some((l) => l['level'] === 'WARN' && /ECONNREFUSED/.test(String(l['error']))),
    ).toBe(true);
  }, 60_000);
});
