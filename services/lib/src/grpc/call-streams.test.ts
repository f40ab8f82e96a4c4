import { credentials, makeGenericClientConstructor, type ClientDuplexStream, type ServiceDefinition } from '@grpc/grpc-js';
import { LedgerServiceService, RecordRequest, type RecordResponse } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createLogger } from '../logging';
import { callOverStreams } from './call-streams';
import { createPromiseClient } from './client';
import type { AnswerEnvelope, CallEnvelope } from './methods';
import { serveService, type ServiceServer } from './server';

/**
 * What carrying unary calls over long-lived streams must keep of unary calls
 * when servers come and go: each call its own answer, a draining server
 * failing no call, and streams replaced as they age. (The answers, errors
 * and deadlines of one call are in transport-contract.test.ts; a server
 * process killed with calls in flight, in services/ledger/test/record-stream.test.ts.)
 */
const definition = { streamRecords: LedgerServiceService.streamRecords };
const logger = createLogger({ service: 'test', level: 'silent' });
const recorded = (requestId: string): RecordResponse => ({ accepted: requestId.endsWith('accepted'), quota: undefined, leaseValidForMs: 0 });

interface TestServer {
  server: ServiceServer<typeof definition>;
  served: string[];
  /** Lets the calls whose request id starts with `held` answer. */
  release(): void;
}

async function startServer(): Promise<TestServer> {
  const served: string[] = [];
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = await serveService({
    definition,
    handlers: {
      streamRecords: async ({ requestId }) => {
        served.push(requestId);
        if (requestId.startsWith('held')) await released;
        // Later calls answer sooner: answers come back out of order.
        else await new Promise((resolve) => setTimeout(resolve, Number(requestId.split('-')[1] ?? 0) % 7));
        return recorded(requestId);
      },
    },
    dependencyChecks: [],
    listen: { host: '127.0.0.1', port: 0 },
    logger,
  });
  return { server, served, release };
}

const call = (requestId: string) => RecordRequest.fromPartial({ requestId });
const servers: TestServer[] = [];

afterEach(async () => {
  for (const { release } of servers) release();
  await Promise.all(servers.splice(0).map(({ server }) => server.stop(1000)));
});

it('gives each of many concurrent calls its own answer, whatever order they are answered in', async () => {
  const one = await startServer();
  servers.push(one);
  const client = createPromiseClient(definition, { serviceName: 'ledger', address: `127.0.0.1:${one.server.grpc.port}`, deadlineMs: 10_000 });
  const ids = Array.from({ length: 200 }, (_, index) => `call-${index}-${index % 3 === 0 ? 'accepted' : 'refused'}`);
  const answers = await Promise.all(ids.map((id) => client.streamRecords(call(id))));
  expect(answers).toEqual(ids.map(recorded));
  client.close();
});

type RawStreams = { streamRecords(): ClientDuplexStream<CallEnvelope<unknown>, AnswerEnvelope<unknown>> };

function rawClient(server: TestServer): RawStreams & { close(): void } {
  const Client = makeGenericClientConstructor(definition as unknown as ServiceDefinition, 'ledger');
  return new Client(`127.0.0.1:${server.server.grpc.port}`, credentials.createInsecure()) as unknown as RawStreams & { close(): void };
}

const options = { serviceName: 'ledger', path: LedgerServiceService.streamRecords.path, address: 'test', deadlineMs: 10_000, outages: undefined };

it('fails no call when a server drains: what it started is answered, the rest are sent again elsewhere', async () => {
  const draining = await startServer();
  const staying = await startServer();
  servers.push(draining, staying);
  const [toDraining, toStaying] = [rawClient(draining), rawClient(staying)];
  // Streams opened in turn on each server, as round robin does, and no longer on the one draining.
  let opened = 0;
  let drainStarted = false;
  const streamed = callOverStreams(() => (!drainStarted && opened++ % 2 === 0 ? toDraining : toStaying).streamRecords(), { ...options, streams: 2, maxStreamAgeMs: 600_000 });
  const held = Array.from({ length: 10 }, (_, index) => streamed.call(call(`held-${index}-accepted`)) as Promise<RecordResponse>);
  const heldOn = (server: TestServer) => server.served.filter((id) => id.startsWith('held')).length;
  while (heldOn(draining) + heldOn(staying) < held.length) await new Promise((resolve) => setImmediate(resolve));
  expect(heldOn(draining)).toBeGreaterThan(0);
  expect(heldOn(staying)).toBeGreaterThan(0);
  const stopped = draining.server.stop(10_000);
  drainStarted = true;
  // Sent on the draining server's stream too: not started there, so sent again on another.
  const during = Array.from({ length: 20 }, (_, index) => streamed.call(call(`during-${index}-accepted`)) as Promise<RecordResponse>);
  draining.release();
  staying.release();
  await stopped;
  const after = Array.from({ length: 20 }, (_, index) => streamed.call(call(`after-${index}-accepted`)) as Promise<RecordResponse>);
  const answers = await Promise.all([...held, ...during, ...after]);
  expect(answers).toHaveLength(50);
  expect(answers.every((answer) => answer.accepted)).toBe(true);
  // Every call ran once, on one server or the other.
  const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}-accepted`);
  expect([...draining.served, ...staying.served].sort()).toEqual([...ids('held', 10), ...ids('during', 20), ...ids('after', 20)].sort());
  expect(draining.served.filter((id) => !id.startsWith('held'))).toEqual([]);
  streamed.close();
  toDraining.close();
  toStaying.close();
});

it('replaces streams as they age, answering the calls the old ones carry', async () => {
  const one = await startServer();
  servers.push(one);
  const raw = rawClient(one);
  let opened = 0;
  const streamed = callOverStreams(() => {
    opened += 1;
    return raw.streamRecords();
  }, { ...options, streams: 2, maxStreamAgeMs: 0 });
  const ids = Array.from({ length: 30 }, (_, index) => `aging-${index}-accepted`);
  await expect(Promise.all(ids.map((id) => streamed.call(call(id))))).resolves.toEqual(ids.map(recorded));
  // A stream older than the age (0 ms) takes no new call: every call opened one.
  expect(opened).toBe(30);
  streamed.close();
  raw.close();
});
