import { connect, createServer, type Server as TcpServer, type Socket } from 'node:net';
import { LedgerServiceService, RecordRequest } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createLogger } from '../logging';
import { createPromiseClient } from './client';
import { serveService, type ServiceServer } from './server';

/**
 * A server ends each connection after its age with a GOAWAY (server.ts), and
 * the calls and streams in flight on it must finish there, while the client
 * goes on pinging its connections (client.ts). grpc-js 1.14.7 took the ping
 * it could not send on the closing connection for a lost one and ended every
 * call on it as UNAVAILABLE "Connection dropped" (grpc/grpc-node#3068): a
 * record then came back unmetered and a watched stream failed, once a
 * minute. patches/ holds the fix; this holds it to account.
 */
const definition = { streamRecords: LedgerServiceService.streamRecords, watchLeases: LedgerServiceService.watchLeases };
const logger = createLogger({ service: 'test', level: 'silent' });

/** Passes TCP through to the server, counting the connections the client opens. */
async function connectionCounter(targetPort: number): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const proxy: TcpServer = createServer((inbound) => {
    connections += 1;
    const outbound = connect(targetPort, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}

let server: ServiceServer<typeof definition> | undefined;

afterEach(async () => {
  await server?.stop(1000);
  server = undefined;
});

it('finishes the calls and streams in flight on a connection the server ends for its age, while the client keeps pinging', async () => {
  server = await serveService({
    definition,
    handlers: {
      streamRecords: async () => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return { accepted: true, quota: undefined, leaseValidForMs: 0 };
      },
      watchLeases: async function* (_request, { signal }) {
        yield { organizationId: '' };
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    },
    dependencyChecks: [],
    listen: { host: '127.0.0.1', port: 0, maxConnectionAgeMs: 300 },
    logger,
  });
  const counter = await connectionCounter(server.grpc.port);
  // A ping every 50 ms: each ended connection is pinged several times while its calls finish.
  const client = createPromiseClient(definition, { serviceName: 'ledger', address: `127.0.0.1:${counter.port}`, deadlineMs: 10_000, keepaliveMs: 50 });

  const watching = new AbortController();
  let watched = 0;
  const watch = (async () => {
    for await (const _pushed of client.watchLeases({ holderId: 'test' }, { signal: watching.signal })) watched += 1;
  })();

  // Calls kept in flight until the client is on its third connection: two ended under it.
  const failures: unknown[] = [];
  let answered = 0;
  const keepCalling = async () => {
    while (counter.connections() < 3) {
      await client.streamRecords(RecordRequest.fromPartial({ requestId: 'a'.repeat(32) })).then(
        () => (answered += 1),
        (error: unknown) => failures.push(error),
      );
    }
  };
  await Promise.all(Array.from({ length: 4 }, keepCalling));

  expect(failures).toEqual([]);
  expect(answered).toBeGreaterThan(0);
  // The stream opened on the first connection is still open and failed nothing.
  watching.abort();
  await expect(watch).resolves.toBeUndefined();
  expect(watched).toBe(1);
  client.close();
  await counter.close();
});
