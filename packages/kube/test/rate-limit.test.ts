import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connect } from '../src/index.js';

let server: Server;
let arrived: number;
let kubeconfig: string;

beforeEach(async () => {
  arrived = 0;
  server = createServer((_req, res) => {
    arrived += 1;
    res.setHeader('Content-Type', 'application/json');
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  kubeconfig = join(mkdtempSync(join(tmpdir(), 'kube-rate-limit.')), 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' +
        address.port +
        '", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n'),
  );
});

afterEach(async () => {
  vi.useRealTimers();
  await new Promise((resolve) => server.close(resolve));
});

/** Lets the event loop run (real I/O) while fake timers hold the bucket's clock. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  await vi.waitFor(() => undefined);
}

describe('client-side rate limit (--kube-client-qps, --kube-client-burst)', () => {
  it('sends the first burst at once, then qps requests per second', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    const connection = connect({ kubeconfig, rateLimit: { qps: 2, burst: 3 } });
    const all = Array.from({ length: 7 }, () => connection.request('GET', '/api'));
    await vi.waitFor(() => expect(arrived).toBe(3));
    await settle();
    expect(arrived).toBe(3); // the bucket is empty until it refills
    await vi.advanceTimersByTimeAsync(1000); // 2 more tokens
    await vi.waitFor(() => expect(arrived).toBe(5));
    await settle();
    expect(arrived).toBe(5);
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(all);
    expect(arrived).toBe(7);
  });

  it('does not limit a connection without a rate limit', async () => {
    const connection = connect({ kubeconfig });
    await Promise.all(Array.from({ length: 50 }, () => connection.request('GET', '/api')));
    expect(arrived).toBe(50);
  });

  it('rejects a qps that is not positive and a burst below 1, naming the field', () => {
    expect(() => connect({ kubeconfig, rateLimit: { qps: 0, burst: 3 } })).toThrow(
      /rateLimit\.qps must be a positive number, got 0/,
    );
    expect(() => connect({ kubeconfig, rateLimit: { qps: 5, burst: 0.5 } })).toThrow(
      /rateLimit\.burst must be an integer >= 1, got 0\.5/,
    );
  });
});
