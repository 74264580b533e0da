/**
 * What a user sees when the controller cannot start: bad options and no kubeconfig at all end
 * the process at once with one error line, always with the same prefix; an unreachable API server
 * is logged on every failed attempt and, after the cache-sync timeout, ends startup with an error
 * naming the cause; SIGTERM while it waits stops it gracefully.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, parseOptions, startOperator } from '../src/index.js';
import {
  noKubeconfigEnv,
  runController,
  unreachableKubeconfig,
} from './support/controller-binary.js';

describe('controller startup without a reachable cluster', () => {
  it('exits 1 with one error line, no stack trace, when there is no kubeconfig and no in-cluster config', async () => {
    const controller = runController([], noKubeconfigEnv());
    expect(await controller.exited).toBe(1);
    expect(controller.stderr).toBe(
      'karpenter-ts-controller: error: no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster\n',
    );
  }, 60_000);

  it('exits 1 naming the kubeconfig and its option when the file is empty or missing', async () => {
    const empty = runController([], { ...noKubeconfigEnv(), KUBECONFIG: '/dev/null' });
    const missing = runController([], { ...noKubeconfigEnv(), KUBECONFIG: '/nonexistent' });
    expect(await empty.exited).toBe(1);
    expect(empty.stderr).toBe(
      'karpenter-ts-controller: error: kubeconfig /dev/null (--kubeconfig, KUBECONFIG) has no clusters\n',
    );
    expect(await missing.exited).toBe(1);
    expect(missing.stderr).toBe(
      'karpenter-ts-controller: error: kubeconfig /nonexistent (--kubeconfig, KUBECONFIG) cannot be read: no such file\n',
    );
  }, 60_000);

  it('reads a KUBECONFIG list as kubectl does, file by file', async () => {
    const listed = runController([], {
      ...noKubeconfigEnv(),
      KUBECONFIG: `${await unreachableKubeconfig()}:/nonexistent`,
    });
    expect(await listed.exited).toBe(1);
    // The second file of the list is read on its own (it was taken as one path "<a>:/nonexistent").
    expect(listed.stderr).toBe(
      'karpenter-ts-controller: error: kubeconfig /nonexistent (--kubeconfig, KUBECONFIG) cannot be read: no such file\n',
    );
  }, 60_000);

  it('exits 1 naming the option and the port when the metrics or health probe port is in use', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, resolve));
    const port = String((busy.address() as AddressInfo).port);
    try {
      const metrics = runController(['--metrics-port', port], noKubeconfigEnv());
      const health = runController(['--health-probe-port', port], noKubeconfigEnv());
      expect(await metrics.exited).toBe(1);
      expect(metrics.stderr).toBe(
        `karpenter-ts-controller: error: --metrics-port (METRICS_PORT, ${port}) cannot listen: the port is in use\n`,
      );
      expect(await health.exited).toBe(1);
      expect(health.stderr).toBe(
        `karpenter-ts-controller: error: --health-probe-port (HEALTH_PROBE_PORT, ${port}) cannot listen: the port is in use\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 60_000);

  it('installs its signal trap before loading any other module, so a SIGTERM while it loads stops it with exit 0', () => {
    // Static imports are all evaluated before the first statement; the rest must be dynamic.
    const source = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8');
    const staticImports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(staticImports).toEqual(['./runtime/early-signals.js']);
    const body = source.slice(source.indexOf("from './runtime/early-signals.js';"));
    expect(body.indexOf('trapEarlySignals()')).toBeLessThan(body.indexOf('await import('));
  });

  it('exits 2 with one prefixed error line for an unknown option, even where commander adds a hint line', async () => {
    const controller = runController(['--metri-port', '1'], noKubeconfigEnv());
    expect(await controller.exited).toBe(2);
    expect(controller.stderr).toBe(
      "karpenter-ts-controller: error: unknown option '--metri-port' (Did you mean --metrics-port?)\n",
    );
  }, 60_000);

  it('exits 2 with the same prefix when two options contradict each other', async () => {
    const controller = runController(['--batch-idle-duration', '20s'], noKubeconfigEnv());
    expect(await controller.exited).toBe(2);
    expect(controller.stderr).toBe(
      'karpenter-ts-controller: error: --batch-idle-duration (BATCH_IDLE_DURATION, 20s) must not exceed --batch-max-duration (BATCH_MAX_DURATION, 10s)\n',
    );
  }, 60_000);

  it('shuts down gracefully and exits 0 on SIGTERM while it waits for the caches to sync', async () => {
    const controller = runController(
      ['--kubeconfig', await unreachableKubeconfig()],
      noKubeconfigEnv(),
    );
    // A failed list: the metrics and health servers listen, the informers retry, the Lease waits.
    await controller.waitForLog((l) => l['message'] === 'listing or watching failed; retrying');
    controller.signal('SIGTERM');
    // Exit 0 on its own: nothing left running (servers closed, informers and the sync deadline
    // stopped), or the process would outlive the test.
    expect(await controller.exited).toBe(0);
    const messages = controller.logs.map((l) => l['message']);
    expect(controller.logs.find((l) => l['message'] === 'shutting down')).toMatchObject({
      reason: 'received SIGTERM',
    });
    expect(messages.at(-1)).toBe('stopped');
    expect(messages).not.toContain('caches synced');
    expect(controller.stderr).toBe('');
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
      controller.signal('SIGKILL');
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
      /^caches not synced after 2000 ms: .*pods\.core.* \(is the API server reachable\?\); last error \([a-z0-9.]+\): .*ECONNREFUSED/,
    );
    expect(lines.find((l) => l['message'] === 'connecting to the API server')).toMatchObject({
      syncTimeoutSeconds: 2,
    });
    expect(
      lines.some((l) => l['level'] === 'WARN' && /ECONNREFUSED/.test(String(l['error']))),
    ).toBe(true);
  }, 60_000);
});
