/**
 * moto's server as a child process: installed (or reused) by install-moto.sh into a venv under
 * the project's cache, started on a free loopback port, stopped by its pid.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The shipped AMI table moto loads instead of its defaults (MOTO_AMIS_PATH; see README). */
export const amisPath = join(packageRoot, 'data', 'amis.json');

/**
 * Runs install-moto.sh and returns the venv's Python (run as `<python> -m moto.server`).
 * About 2 minutes the first time on a machine (a 317 MB venv from PyPI), a few milliseconds
 * after. Raises Error with the script's stderr when the install fails.
 */
export function ensureMoto(): string {
  const r = spawnSync('bash', [join(packageRoot, 'install-moto.sh')], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`aws-emulator: install-moto.sh failed (exit ${r.status}):\n${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  const python = lines[lines.length - 1];
  if (!python) throw new Error('aws-emulator: install-moto.sh printed no python path');
  return python;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick, released before use). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return address.port;
}

/** A running moto server. */
export interface MotoServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly pid: number;
  /** Ends the process (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
}

/**
 * Starts moto's server on a free loopback port and waits (up to `timeoutMs`, default 30 s) until
 * it answers. Raises Error with moto's output when it exits or does not answer in time.
 */
export async function startMotoServer(
  options: { python?: string; timeoutMs?: number } = {},
): Promise<MotoServer> {
  const python = options.python ?? ensureMoto();
  const port = await freeLoopbackPort();
  const child: ChildProcess = spawn(
    python,
    ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)],
    {
      env: { ...process.env, MOTO_AMIS_PATH: amisPath, PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (b: Buffer): void => {
    output = (output + b.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (exited) throw new Error(`aws-emulator: moto exited while starting:\n${output}`);
    try {
      const res = await fetch(`${url}/moto-api/data.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`aws-emulator: moto did not answer on ${url} in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid ?? -1,
    async stop() {
      if (exited) return;
      const gone = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(timer);
    },
  };
}
