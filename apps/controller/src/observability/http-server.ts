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

/**
 * Listens on `port` (0 = any free port) on all interfaces, or `host` when given.
 * @param name how the user chose the port, e.g. `--metrics-port (METRICS_PORT)`, for errors.
 * @throws Error `--metrics-port (METRICS_PORT, 8080) cannot listen: the port is in use` (the port
 * added inside the name's brackets; `permission denied`, or the system's message, for other
 * causes) when the port cannot be bound.
 */
export async function startHttpServer(
  port: number,
  routes: Readonly<Record<string, Route>>,
  host?: string,
  name = 'port',
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
    const fail = (err: NodeJS.ErrnoException) => {
      const label = name.endsWith(')') ? `${name.slice(0, -1)}, ${port})` : `${name} ${port}`;
      reject(new Error(`${label} cannot listen: ${listenFailure(err)}`));
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
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

/** Why a port cannot be bound, in words (the system's message when it is no common case). */
function listenFailure(err: NodeJS.ErrnoException): string {
  if (err.code === 'EADDRINUSE') return 'the port is in use';
  if (err.code === 'EACCES') return 'permission denied';
  return err.message;
}
