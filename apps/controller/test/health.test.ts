import { afterEach, describe, expect, it } from 'vitest';
import { HealthChecks, startHttpServer, type RunningServer } from '../src/index.js';

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(health: HealthChecks): Promise<string> {
  const server = await startHttpServer(0, health.routes(), '127.0.0.1');
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

describe('health endpoints', () => {
  it('answers /healthz with ok while the process runs', async () => {
    const base = await serve(new HealthChecks());
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
  });

  it('answers /readyz 500 naming the failing checks until caches sync and CRDs resolve', async () => {
    const health = new HealthChecks();
    let synced = false;
    let crds: () => Promise<boolean> = () =>
      Promise.reject(new Error('the server could not find the requested resource'));
    health.addReadyCheck('cache-sync', () => synced);
    health.addReadyCheck('crd', () => crds());
    const base = await serve(health);

    let res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(body).toContain('[+]ping ok');
    expect(body).toContain('[-]cache-sync failed: not ready');
    expect(body).toContain('[-]crd failed: the server could not find the requested resource');

    synced = true;
    crds = async () => true;
    res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
  });

  it('answers 404 for unknown paths and 405 for writes', async () => {
    const base = await serve(new HealthChecks());
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});
