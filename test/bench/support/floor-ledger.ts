/**
 * The ledger's side of the hot path's floor (`npm run bench:compare`): what
 * the design asks of it per request and nothing else. It takes records on a
 * bidirectional gRPC stream that stays open (raw bytes, no protobuf, no
 * validation, no telemetry, no logging) and answers each once one Redis
 * script (through lib's Redis client, as the ledger's) has added its cost to the organization's counter and appended it
 * to a stream, the record's durability. Runs as its own process, its Redis
 * in REDIS_URL, and prints the port it bound on stdout.
 */
import { Server, ServerCredentials, type ServerDuplexStream, type ServiceDefinition } from '@grpc/grpc-js';
import { createRedis } from '@gateway/lib/redis';
import { FLOOR_RECORDS_SERVICE, FLOOR_SETTLE_SCRIPT, type FloorAnswer, type FloorRecord } from './floor-records';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
redis.defineCommand('floorSettle', { numberOfKeys: 2, lua: FLOOR_SETTLE_SCRIPT });
const settle = (redis as unknown as { floorSettle(counter: string, stream: string, cost: number, record: string): Promise<number> }).floorSettle.bind(redis);

function answerRecords(call: ServerDuplexStream<Buffer, Buffer>): void {
  call.on('data', (message: Buffer) => {
    const { id, organization, costMicros, record } = JSON.parse(message.toString('utf8')) as FloorRecord;
    settle(`floor:counters:${organization}`, 'floor:records', costMicros, record).then(
      (spentMicros) => call.write(Buffer.from(JSON.stringify({ id, spentMicros } satisfies FloorAnswer))),
      (error: unknown) => call.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  });
  call.on('end', () => call.end());
}

const server = new Server({ 'grpc.enable_channelz': 0 });
server.addService(FLOOR_RECORDS_SERVICE as ServiceDefinition, { records: answerRecords });
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`${port}\n`);
});
process.once('SIGTERM', () => {
  server.forceShutdown();
  redis.disconnect();
  process.exit(0);
});
