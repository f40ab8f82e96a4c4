import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttpServer } from './http-server';

/**
 * closeHttpServer ends a server without cutting a request: the one in flight
 * finishes, the idle kept-alive connection is closed at once (the keep-alive
 * timeout here is ten minutes, so a close that waited for it would never
 * resolve within the test), and what is still open after the grace is cut.
 */
describe('closeHttpServer', () => {
  let server: Server;
  let port: number;
  let release: () => void = () => undefined;
  const agent = new Agent({ keepAlive: true });

  beforeEach(async () => {
    server = createServer((req, res) => {
      if (req.url === '/slow') {
        res.write('first half, ');
        release = () => res.end('second half');
        return;
      }
      res.end('quick');
    });
    server.keepAliveTimeout = 10 * 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ({ port } = server.address() as AddressInfo);
  });

  afterEach(() => {
    agent.destroy();
    server.closeAllConnections();
  });

  /** A GET on the keep-alive agent: its status, Connection header and whole body; `onHead` runs when the headers arrive. */
  const get = (path: string, onHead: () => void = () => undefined) =>
    new Promise<{ connection: string | undefined; body: string }>((resolve, reject) => {
      request({ port, path, agent }, (response) => {
        onHead();
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => (body += piece));
        response.on('error', reject);
        response.on('end', () => resolve({ connection: response.headers.connection, body }));
      })
        .on('error', reject)
        .end();
    });

  it('lets the request in flight finish and closes the idle connection without waiting for its timeout', async () => {
    expect(await get('/quick')).toEqual({ connection: 'keep-alive', body: 'quick' });
    let headersArrived: () => void = () => undefined;
    const slowHead = new Promise<void>((resolve) => (headersArrived = resolve));
    const slow = get('/slow', headersArrived);
    await slowHead;

    const closed = closeHttpServer(server, 60_000);
    expect(server.listening).toBe(false);
    release();
    expect((await slow).body).toBe('first half, second half');
    await closed;
  });

  it('cuts what is still open once the grace has passed', async () => {
    let headersArrived: () => void = () => undefined;
    const slowHead = new Promise<void>((resolve) => (headersArrived = resolve));
    const slow = get('/slow', headersArrived);
    await slowHead;
    await closeHttpServer(server, 10);
    await expect(slow).rejects.toThrow();
  });

  it('does nothing to a server that is not listening', async () => {
    await closeHttpServer(server, 10);
    await expect(closeHttpServer(server, 10)).resolves.toBeUndefined();
  });
});
