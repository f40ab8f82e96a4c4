/**
 * Edge's side of the hot path's floor (`npm run bench:compare`): what the
 * design asks of an edge replica per request and nothing else, on node:http
 * with no framework. It reads the JSON body, names the served model, calls
 * the upstream over a keep-alive undici Pool, reads the usage, sends one
 * record on a bidirectional gRPC stream to the floor's ledger (raw bytes, no
 * protobuf) and answers once the record's answer is back, with what it said
 * in a header. A streamed answer passes through as it comes and ends after
 * the record's answer. No authentication, validation, routing, admission,
 * telemetry or logging: what is left is the hops. Runs as its own process
 * (UPSTREAM_ORIGIN, LEDGER_ADDRESS, SERVED_MODEL) and prints its port on stdout.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentials, makeGenericClientConstructor, type ClientDuplexStream } from '@grpc/grpc-js';
import { Pool } from 'undici';
import { FLOOR_RECORDS_SERVICE, type FloorAnswer, type FloorRecord } from './floor-records';

const upstream = new Pool(process.env.UPSTREAM_ORIGIN ?? '', { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
const servedModel = process.env.SERVED_MODEL ?? 'mock';
const RecordsClient = makeGenericClientConstructor(FLOOR_RECORDS_SERVICE, 'FloorRecords');
const ledger = new RecordsClient(process.env.LEDGER_ADDRESS ?? '', credentials.createInsecure(), { 'grpc.enable_channelz': 0 });
const records = (ledger as unknown as { records(): ClientDuplexStream<Buffer, Buffer> }).records();
const waiting = new Map<number, (answer: FloorAnswer) => void>();
records.on('data', (message: Buffer) => {
  const answer = JSON.parse(message.toString('utf8')) as FloorAnswer;
  waiting.get(answer.id)?.(answer);
  waiting.delete(answer.id);
});
records.on('error', (error: Error) => {
  console.error(`the floor's record stream failed: ${error.message}`);
  process.exit(1);
});

type FloorUsage = { prompt_tokens?: number; completion_tokens?: number };

let lastId = 0;
/** Sends the request's record and waits for the ledger's answer. */
function record(usage: FloorUsage | undefined): Promise<FloorAnswer> {
  const id = (lastId += 1);
  const costMicros = (usage?.prompt_tokens ?? 0) * 3 + (usage?.completion_tokens ?? 0) * 15;
  const entry: FloorRecord = { id, organization: 'floor', costMicros, record: JSON.stringify({ id, model: servedModel, usage, costMicros, at: new Date().toISOString() }) };
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    records.write(Buffer.from(JSON.stringify(entry)));
  });
}

/** The usage chunk of a streamed answer: the last `data:` line that carries one. */
function streamedUsage(text: string) {
  const line = text.split('\n').findLast((each) => each.startsWith('data: {') && each.includes('"usage"'));
  return line ? (JSON.parse(line.slice('data: '.length)) as { usage?: FloorUsage }).usage : undefined;
}
async function serve(res: ServerResponse, raw: Buffer): Promise<void> {
  const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  body.model = servedModel;
  if (body.stream === true) body.stream_options = { include_usage: true };
  const answer = await upstream.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer floor' },
    body: JSON.stringify(body),
  });
  if (body.stream !== true) {
    const text = await answer.body.text();
    const { spentMicros } = await record((JSON.parse(text) as { usage?: FloorUsage }).usage);
    res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-floor-spent': String(spentMicros) });
    res.end(text);
    return;
  }
  res.writeHead(answer.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seen = '';
  for await (const chunk of answer.body) {
    res.write(chunk);
    seen += (chunk as Buffer).toString('utf8');
  }
  await record(streamedUsage(seen));
  res.end();
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () =>
    serve(res, Buffer.concat(chunks)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } }));
    }),
  );
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.once('SIGTERM', () => {
  records.end();
  ledger.close();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
