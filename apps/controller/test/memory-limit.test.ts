/**
 * `--memory-limit` on the real binary: it relaunches itself once with the V8 heap sized within
 * 90 % of the limit (runtime/heap-limit.ts), relays SIGTERM to the controller, which shuts down
 * gracefully, keeps a heap size the user chose, and refuses a limit too small to run in. The
 * API server is unreachable, so the controller stays in its cache-sync wait.
 */
import { describe, expect, it } from 'vitest';
import {
  noKubeconfigEnv,
  processExists,
  runController,
  unreachableKubeconfig,
  type LogLine,
} from './support/controller-binary.js';

const GiB = 1024 ** 3;
const starting = (l: LogLine) => l['message'] === 'starting';
const retrying = (l: LogLine) => l['message'] === 'listing or watching failed; retrying';

describe('controller binary with --memory-limit', () => {
  it('runs the controller with its V8 heap sized within 90 % of the limit, and relays SIGTERM for a graceful shutdown', async () => {
    const controller = runController(['--kubeconfig', await unreachableKubeconfig()], {
      ...noKubeconfigEnv(),
      MEMORY_LIMIT: String(GiB),
    });
    const start = await controller.waitForLog(starting);
    // 1 GiB: 921 MiB (90 %) less 128 MiB outside the V8 heap; old space 745 + young 48.
    expect(start).toMatchObject({ heapLimitMiB: 793, memoryLimit: GiB });
    const controllerPid = start['pid'] as number;
    expect(controllerPid).not.toBe(controller.pid);
    await controller.waitForLog(retrying);

    controller.signal('SIGTERM');
    expect(await controller.exited).toBe(0);
    expect(controller.logs.find((l) => l['message'] === 'shutting down')).toMatchObject({
      reason: 'received SIGTERM',
    });
    expect(controller.logs.at(-1)?.['message']).toBe('stopped');
    // The launcher exits only after the controller it started has exited.
    expect(processExists(controllerPid)).toBe(false);
    expect(controller.stderr).toBe('');
  }, 120_000);

  it('stops the controller gracefully when its launcher is killed outright', async () => {
    const controller = runController(['--kubeconfig', await unreachableKubeconfig()], {
      ...noKubeconfigEnv(),
      MEMORY_LIMIT: String(GiB),
    });
    await controller.waitForLog(retrying);
    controller.signal('SIGKILL');
    expect(await controller.exited).toBe('SIGKILL');
    // The controller still writes to the same stdout until it has stopped.
    await controller.stdoutClosed;
    const messages = controller.logs.map((l) => l['message']);
    expect(messages).toContain('shutting down');
    expect(messages.at(-1)).toBe('stopped');
  }, 120_000);

  it('keeps the old space size the user gave in NODE_OPTIONS and does not relaunch', async () => {
    const controller = runController(['--kubeconfig', await unreachableKubeconfig()], {
      ...noKubeconfigEnv(),
      MEMORY_LIMIT: String(GiB),
      NODE_OPTIONS: '--max-old-space-size=300',
    });
    const start = await controller.waitForLog(starting);
    expect(start).toMatchObject({ pid: controller.pid, heapLimitMiB: 348 });
    controller.signal('SIGTERM');
    expect(await controller.exited).toBe(0);
  }, 120_000);

  it('refuses a limit too small to run in with one error line naming --memory-limit', async () => {
    const controller = runController([], {
      ...noKubeconfigEnv(),
      MEMORY_LIMIT: String(256 * 1024 ** 2),
    });
    expect(await controller.exited).toBe(2);
    expect(controller.stderr).toBe(
      'karpenter-ts-controller: error: --memory-limit (MEMORY_LIMIT) 268435456 bytes (256 MiB) is too small: the controller needs at least 338 MiB (354418688 bytes), or set --max-old-space-size in NODE_OPTIONS yourself\n',
    );
  }, 60_000);
});
