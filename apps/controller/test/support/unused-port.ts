/**
 * A local TCP port for tests that start servers or need a refused connection. Plain node:net,
 * no vitest import, so both the unit suite and the e2e suite (test/e2e/vitest.config.ts) use it.
 */
import { createServer } from 'node:net';

/**
 * A port on 127.0.0.1 that nothing listens on right now: the OS picks a free one for a
 * throwaway server, which is closed again before returning. Connecting to it is refused until
 * someone listens on it (another process may take it meanwhile, as with any free-port probe).
 * @throws Error `no port` when the server reports no TCP address.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
