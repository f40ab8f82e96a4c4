/**
 * What carrying a record to the ledger and its answer back costs, apart from
 * what either side does with it (docs/performance.md, "The record's round
 * trip beside the floor's"). A server process of its own on 127.0.0.1 with
 * telemetry started as every service starts it, and three ways over one
 * long-lived grpc-js stream each, called one at a time, `--gap-ms` apart as
 * records arrive at 200 req/s, the ways interleaved so the machine's drift
 * falls on all of them alike:
 *
 * Each call is made inside a span of its own, as edge makes its record inside
 * the request's span.
 *
 * - lib's call stream (what edge and the ledger use): the ledger's
 *   StreamRecords method, its protobuf envelope, the caller's trace context
 *   carried in the envelope's metadata (and no spans of the call's own: with
 *   no exporter nothing records them, call-spans.ts), deadline and
 *   histograms; the server's handler answers at once, as a constant;
 * - the same protobuf envelope and record on a bare stream of raw bytes (the
 *   server decodes the envelope and encodes an answer of the same shape), so
 *   the difference from the first is lib's own work around each call;
 * - the floor's few bytes of JSON on a bare stream (FLOOR_RECORDS_SERVICE).
 *
 * Prints p50, p90 and p99 per way; asserts nothing. Options: `-- --calls N` (of
 * each way, default 800; the first tenth is left out as warm-up), `--gap-ms N`
 * (default 5).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { z } from 'zod';
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { startTelemetry } from '@gateway/lib/telemetry';

const serving = process.argv[2] === 'server';
// Before the modules that make instruments are loaded, as every service's main.ts does.
startTelemetry({ serviceName: serving ? 'bench-transport-server' : 'bench-transport-client' });

import { Server, ServerCredentials, credentials, makeGenericClientConstructor, type ClientDuplexStream, type ServerDuplexStream, type ServiceDefinition } from '@grpc/grpc-js';
import { LedgerServiceService, QuotaState, RecordRequest, StreamRecordsRequest, StreamRecordsResponse, type RecordResponse } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createLogger } from '@gateway/lib/logging';
import { recordOf, subject } from '../../services/ledger/test/support/ledger';
import { rawBytesMethod } from './support/echo-service';
import { FLOOR_RECORDS_SERVICE } from './support/floor-records';
import { interleavedOptions, measuredCalls, timeInterleaved, type TimeOne } from './support/interleaved';
import { machineLine } from './support/stats';

const definition = { streamRecords: LedgerServiceService.streamRecords };
/** The bare stream of protobuf envelopes: StreamRecords's messages as bytes, (de)coded by hand. */
const PROTOBUF_RECORDS_SERVICE: ServiceDefinition = { records: rawBytesMethod('/bench.transport.v1.ProtobufRecords/Records', true) };
type RawStreamClient = { records(): ClientDuplexStream<Buffer, Buffer> };

/** An answer as the ledger gives one for a record against a lease. */
const ANSWER: RecordResponse = {
  accepted: true,
  quota: QuotaState.fromPartial({ meter: 1, allowanceMicros: '10000000', spentMicros: '336', remainingMicros: '9999664', resetsAt: new Date() }),
  leaseValidForMs: 60_000,
};

/** The id a JSON message names (the bare streams' own framing, read without a schema library: what is timed is the transport). */
function jsonId(message: Buffer): number {
  const parsed: unknown = JSON.parse(message.toString('utf8'));
  if (typeof parsed === 'object' && parsed !== null && 'id' in parsed && typeof parsed.id === 'number') return parsed.id;
  throw new Error('a JSON message without its numeric id');
}

/** Answers every message of a bare stream with what `answer` makes of it, in a later turn of the loop as a handler would. */
function answerEach(answer: (message: Buffer) => Buffer) {
  return (call: ServerDuplexStream<Buffer, Buffer>) => {
    call.on('data', (message: Buffer) => setImmediate(() => call.write(answer(message))));
    call.on('end', () => call.end());
  };
}

async function serve(): Promise<void> {
  // lib's gRPC modules once telemetry has started (imports are hoisted above its start).
  const { serveService } = await import('@gateway/lib/grpc');
  const lib = await serveService({
    definition,
    handlers: { streamRecords: () => Promise.resolve(ANSWER) },
    dependencyChecks: [],
    listen: { host: '127.0.0.1', port: 0 },
    logger: createLogger({ service: 'bench-transport', level: 'silent' }),
  });
  const bare = new Server({ 'grpc.enable_channelz': 0 });
  bare.addService(PROTOBUF_RECORDS_SERVICE, {
    records: answerEach((message) => {
      const { callId } = StreamRecordsRequest.decode(message);
      return Buffer.from(StreamRecordsResponse.encode({ callId, response: ANSWER, status: undefined }).finish());
    }),
  });
  bare.addService(FLOOR_RECORDS_SERVICE, {
    records: answerEach((message) => Buffer.from(JSON.stringify({ id: jsonId(message), spentMicros: 336 }))),
  });
  const barePort = await new Promise<number>((resolve, reject) =>
    bare.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
  process.stdout.write(`${lib.grpc.port} ${barePort}\n`);
  process.once('SIGTERM', () => {
    bare.forceShutdown();
    void lib.stop(0).then(() => process.exit(0));
  });
}

/** Calls over one bare stream, each answered by the message that names its id. */
function bareCalls(stream: ClientDuplexStream<Buffer, Buffer>, answeredId: (message: Buffer) => number) {
  const waiting = new Map<number, () => void>();
  stream.on('data', (message: Buffer) => {
    const id = answeredId(message);
    waiting.get(id)?.();
    waiting.delete(id);
  });
  let lastId = 0;
  return (message: (id: number) => Buffer) =>
    new Promise<void>((resolve) => {
      lastId += 1;
      waiting.set(lastId, resolve);
      stream.write(message(lastId));
    });
}

async function measure(): Promise<void> {
  const options = interleavedOptions(process.argv.slice(2), 800);

  const server = spawn(process.execPath, [...process.execArgv, __filename, 'server'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [ports] = (await once(server.stdout, 'data')) as [Buffer];
    const [libPort, barePort] = z.tuple([z.coerce.number(), z.coerce.number()]).parse(ports.toString('utf8').trim().split(' '));
    const { createPromiseClient } = await import('@gateway/lib/grpc');
    const ledger = createPromiseClient(definition, { serviceName: 'ledger', address: `127.0.0.1:${libPort}`, deadlineMs: 10_000 });
    const bareClient = (service: ServiceDefinition) =>
      new (makeGenericClientConstructor(service, 'BareRecords'))(`127.0.0.1:${barePort}`, credentials.createInsecure()) as unknown as RawStreamClient;
    const protobufCall = bareCalls(bareClient(PROTOBUF_RECORDS_SERVICE).records(), (message) => StreamRecordsResponse.decode(message).callId);
    const jsonCall = bareCalls(bareClient(FLOOR_RECORDS_SERVICE).records(), jsonId);

    const who = subject();
    const record = RecordRequest.fromPartial({ ...recordOf(who, { leaseId: '2026-11:lease:edge-bench:spend' }), commitWithinMs: 2000 });
    const recordJson = JSON.stringify(record);
    const ways: Record<string, () => Promise<unknown>> = {
      "lib's call stream (protobuf, trace context, deadline)": () => ledger.streamRecords(record, { deadlineMs: 2500 }),
      'the same envelope on a bare stream': () =>
        protobufCall((callId) => Buffer.from(StreamRecordsRequest.encode({ callId, metadata: {}, timeoutMs: 2500, request: record }).finish())),
      "the floor's JSON on a bare stream": () =>
        jsonCall((id) => Buffer.from(JSON.stringify({ id, organization: who.organizationId, costMicros: 336, record: recordJson }))),
    };
    const requests = trace.getTracer('bench-transport');
    // Inside a request's span, made before the clock starts, as edge records a call (its HTTP server span: the trace id is the request id).
    const inRequestSpan: TimeOne = async (run) => {
      const request = requests.startSpan('POST', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      const started = performance.now();
      await context.with(trace.setSpan(ROOT_CONTEXT, request), run);
      const elapsed = performance.now() - started;
      request.end();
      return elapsed;
    };
    const summaries = await timeInterleaved(ways, options, { timeOne: inRequestSpan });
    console.log(`\n${machineLine()}\n${measuredCalls(options)} calls each way, ${options.gapMs} ms apart, interleaved; round trip, ms:\n`);
    console.log('| way | p50 | p90 | p99 |\n| --- | --- | --- | --- |');
    for (const [name, { p50, p90, p99 }] of summaries) console.log(`| ${name} | ${p50.toFixed(3)} | ${p90.toFixed(3)} | ${p99.toFixed(3)} |`);
  } finally {
    server.kill('SIGTERM');
  }
}

(serving ? serve() : measure()).then(
  () => {
    if (!serving) process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
