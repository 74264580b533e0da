/**
 * `/healthz` and `/readyz` as controller-runtime serves them: healthz is a
 * ping; readyz is the ping plus named checks (upstream: the manager's caches have synced and the
 * NodePool and NodeClaim CRDs resolve). Each answers 200 `ok`, or 500 listing every check as
 * `[+]name ok` / `[-]name failed: reason`.
 */
import type { HttpResponse, Route } from './http-server.js';

/** A readiness check: resolves true when ready; false or a thrown error means not ready. */
export type Check = () => boolean | Promise<boolean>;

/** The registry of checks behind the two endpoints. */
export class HealthChecks {
  readonly #ready = new Map<string, Check>();
  readonly #live = new Map<string, Check>([['ping', () => true]]);

  constructor() {
    this.#ready.set('ping', () => true);
  }

  /** Adds a check to `/readyz`. */
  addReadyCheck(name: string, check: Check): void {
    this.#ready.set(name, check);
  }

  /** Adds a check to `/healthz` (beyond the ping). */
  addHealthCheck(name: string, check: Check): void {
    this.#live.set(name, check);
  }

  /** The routes to serve on the health probe port. */
  routes(): Record<string, Route> {
    return {
      '/healthz': () => run(this.#live, 'healthz'),
      '/readyz': () => run(this.#ready, 'readyz'),
    };
  }
}

async function run(checks: ReadonlyMap<string, Check>, what: string): Promise<HttpResponse> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    try {
      if (await check()) lines.push(`[+]${name} ok`);
      else {
        ok = false;
        lines.push(`[-]${name} failed: not ready`);
      }
    } catch (err) {
      ok = false;
      lines.push(`[-]${name} failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }
  return ok
    ? { status: 200, body: 'ok' }
    : { status: 500, body: `${lines.join('\n')}\n${what} check failed\n` };
}
