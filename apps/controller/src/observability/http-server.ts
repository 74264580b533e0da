/**
 * A tiny HTTP server for the probe and metrics ports (node:http; GET/HEAD only). Unknown paths
 * answer 404; a handler that throws answers 500 with the message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a route answers. */
export interface HttpResponse {
  readonly status: number;
  readonly contentType?: string;
  readonly body: string;
}

/** A route handler. */
export type Route = () => HttpResponse | Promise<HttpResponse>;

/** A listening server. */
export interface RunningServer {
  /** The port it listens on (the real one when asked for port 0). */
  readonly port: number;
  /** Stops accepting connections and closes idle ones. */
  close(): Promise<void>;
}

/** Listens on `port` (0 = any free port) on all interfaces, or `host` when given. */
export async function startHttpServer(
  port: number,
  routes: Readonly<Record<string, Route>>,
  host?: string,
): Promise<RunningServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = routes[path];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    Promise.resolve()
      .then(route)
      .then(
        (r) =>
          res
            .writeHead(r.status, { 'content-type': r.contentType ?? 'text/plain; charset=utf-8' })
            .end(r.body),
        (err: unknown) =>
          res
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`${(err as Error)?.message ?? err}\n`),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
