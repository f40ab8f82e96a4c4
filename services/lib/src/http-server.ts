import type { Server } from 'node:http';

/** How often a closing server looks for connections that have gone idle. */
const IDLE_SWEEP_MS = 50;

/**
 * Stops an HTTP server without cutting a request: no new connections, every
 * request in flight (a stream included) runs to its end, and each kept-alive
 * connection is closed as soon as it is idle, rather than after the
 * keep-alive timeout (Node's `close()` alone leaves idle connections open
 * that long, and still serves new requests on them). A request that still
 * arrives on one is answered with `Connection: close`. After `graceMs` the
 * connections still open are cut.
 */
export function closeHttpServer(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  const lastOnConnection = (_request: unknown, response: { setHeader(name: string, value: string): void }) => response.setHeader('connection', 'close');
  server.prependListener('request', lastOnConnection);
  return new Promise((resolve, reject) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close((error) => {
      clearInterval(sweep);
      clearTimeout(cut);
      server.off('request', lastOnConnection);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
