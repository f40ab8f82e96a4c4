import { createServer } from 'node:net';

/**
 * A TCP port free right now on the host, for two services that must each
 * know the other's address before either starts (edge and the agent). The
 * port is released before it is returned, so another process could take it
 * first: use it for local runs and tests, never where ports are assigned.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port was assigned'))));
    });
  });
}
