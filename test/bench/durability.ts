/**
 * What a record's durability costs in Redis on this machine, apart from
 * everything else (docs/performance.md, "The record's round trip beside the
 * floor's"). Private Redis servers on 127.0.0.1, one call at a time, calls
 * `--gap-ms` apart as records arrive at 200 req/s, the kinds interleaved so
 * that the machine's drift falls on all of them alike:
 *
 * - the ledger's settle of one record against its lease (RedisQuotaStore,
 *   the ledger's own script and a payload the ledger builds), on a Redis
 *   persisting as production's must (AOF, `appendfsync always`);
 * - the hot path's floor's two-command script on the same server;
 * - a GET there: a round trip with nothing to write or fsync;
 * - the ledger's settle on a Redis with one replica (`appendfsync everysec`
 *   on both), followed by `WAIT 1`: durable by a second copy instead of an
 *   fsync, and the same settle with no wait at all (what durability adds).
 *
 * Prints p50, p90 and p99 per kind and, beside them, the median time Redis
 * itself spent executing the call (its slowlog, every command logged): what
 * the round trip and the fsync leave out. Asserts nothing. Options: `-- --calls N`
 * (of each kind, default 600; the first tenth is left out as warm-up),
 * `--gap-ms N` (default 5).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { ledgerKeys } from '../../services/ledger/src/redis/keys';
import { RedisQuotaStore, scripts } from '../../services/ledger/src/quota/redis-store';
import { leaseHoldId } from '../../services/ledger/src/leases/lease';
import { periodOf } from '../../services/ledger/src/quota/period';
import { buildPayload } from '../../services/ledger/src/recording/build';
import { recordSchema } from '../../services/ledger/src/rpc/schemas';
import { recordOf, subject } from '../../services/ledger/test/support/ledger';
import { FLOOR_SETTLE_SCRIPT } from './support/floor-records';
import { interleavedOptions, measuredCalls, timeInterleaved } from './support/interleaved';
import { machineLine, summarize } from './support/stats';

const options = interleavedOptions(process.argv.slice(2), 600);

const LIMIT = 1_000_000_000_000n;
/** How long WAIT may block for the replica's acknowledgement, within the client's command timeout. */
const REPLICA_WAIT_MS = 500;

/** A lease one holder keeps open, and a settle of one record against it, as the ledger makes them. */
async function ledgerSettle(redis: Redis): Promise<() => Promise<unknown>> {
  const store = new RedisQuotaStore(redis, ledgerKeys(`bench-durability-${randomUUID()}`));
  const who = subject();
  const now = new Date();
  const period = periodOf(now);
  const key = { organizationId: who.organizationId, period: period.key };
  await store.rebuild(key, { used: { spend: 0n, requests: 0n, legacy: 0n }, credits: 0n });
  const holdId = leaseHoldId('edge-bench', 'spend');
  const leased = await store.lease({ ...key, holdId, meter: 'spend', need: LIMIT / 2n, want: 0n, giveBack: 0n, limit: LIMIT, enforce: true, nowMs: Date.now(), expiresAtMs: Date.now() + 600_000, shareDivisor: 1n });
  if (leased.kind !== 'granted') throw new Error('the bench could not lease its allowance');
  const record = recordSchema.parse(recordOf(who, { leaseId: `${period.key}:${holdId}` }));
  const payload = JSON.stringify(buildPayload(record, 'spend', period, now));
  return () =>
    store.settle(
      { ...key, holdId: null, leaseId: holdId, nowMs: Date.now(), leaseExpiresAtMs: Date.now() + 600_000, meter: 'spend', usage: 100n, limit: LIMIT, commitByMs: Date.now() + 5000 },
      payload,
    );
}

/** Which of a server's commands are a kind's: its client and the command's first arguments (EVALSHA and the script's SHA, say). */
interface ExecutedAs {
  redis: Redis;
  command: string[];
}

/** One kind of call, and where Redis logs its execution (none for a kind whose commands another kind's share). */
interface Kind {
  run: () => Promise<unknown>;
  executedAs?: ExecutedAs;
}

/** A slowlog entry as Redis 7 replies: id, unix time, microseconds executing, the command's arguments, client address, client name. */
const slowlogEntries = z.array(z.tuple([z.number(), z.number(), z.number(), z.array(z.string())]).rest(z.unknown()));

/** Every command the server runs is logged from here on, with how long it executed. */
async function logEveryCommand(redis: Redis): Promise<void> {
  await redis.config('SET', 'slowlog-log-slower-than', '0', 'slowlog-max-len', '1000000');
  await redis.slowlog('RESET');
}

type SlowlogEntry = z.infer<typeof slowlogEntries>[number];

/** Every command each server logged since logEveryCommand, read once a server. */
async function slowlogsOf(servers: Redis[]): Promise<Map<Redis, SlowlogEntry[]>> {
  return new Map(await Promise.all(servers.map(async (redis) => [redis, slowlogEntries.parse(await redis.call('SLOWLOG', 'GET', '-1'))] as const)));
}

/** The median time spent executing the kind's calls, in ms. */
function medianExecution(entries: readonly SlowlogEntry[], command: readonly string[]): number {
  const micros = entries
    .filter(([, , , args]) => command.every((part, index) => args[index]?.toLowerCase() === part.toLowerCase()))
    .map(([, , executing]) => executing);
  return micros.length === 0 ? Number.NaN : summarize(micros).p50 / 1000;
}

async function main(): Promise<void> {
  const servers: RedisServer[] = [];
  const clients: Redis[] = [];
  const connect = (server: RedisServer) => {
    const client = createRedis(server.url);
    clients.push(client);
    return client;
  };
  try {
    const always = await startRedisServer({ persistence: 'aof' });
    servers.push(always);
    const primary = await startRedisServer({ persistence: 'aof', extraArguments: ['--appendfsync', 'everysec'] });
    servers.push(primary);
    const primaryPort = new URL(primary.url).port;
    servers.push(await startRedisServer({ persistence: 'aof', extraArguments: ['--appendfsync', 'everysec', '--replicaof', '127.0.0.1', primaryPort] }));

    const onAlways = connect(always);
    const onPrimary = connect(primary);
    // The replica takes its first copy of the primary before it acknowledges anything.
    while ((await onPrimary.wait(1, REPLICA_WAIT_MS)) !== 1) await onPrimary.set('bench-durability:probe', '1');

    const settleAlways = await ledgerSettle(onAlways);
    const settleReplicated = await ledgerSettle(onPrimary);
    // By its SHA, as the floor's ledger runs it (ioredis's defineCommand).
    const floorSha = String(await onAlways.script('LOAD', FLOOR_SETTLE_SCRIPT));
    const floorPayload = JSON.stringify({ id: 1, model: 'mock', usage: { prompt_tokens: 12, completion_tokens: 20 }, costMicros: 336, at: new Date().toISOString() });
    const settleSha = scripts.settle.sha;
    const kinds: Record<string, Kind> = {
      "the ledger's settle, appendfsync always": { run: settleAlways, executedAs: { redis: onAlways, command: ['evalsha', settleSha] } },
      "the floor's script, appendfsync always": {
        run: () => onAlways.evalsha(floorSha, 2, 'bench-durability:floor-counter', 'bench-durability:floor-records', 336, floorPayload),
        executedAs: { redis: onAlways, command: ['evalsha', floorSha] },
      },
      'a GET on the same server (nothing to fsync)': { run: () => onAlways.get('bench-durability:probe'), executedAs: { redis: onAlways, command: ['get'] } },
      // Both settles on the primary, with and without the wait, are one kind of command to it: counted below.
      "the ledger's settle, then WAIT 1 (a replica, everysec)": {
        run: async () => {
          await settleReplicated();
          if ((await onPrimary.wait(1, REPLICA_WAIT_MS)) !== 1) throw new Error('the replica did not acknowledge the write');
        },
      },
      "the ledger's settle, everysec, no wait (not durable)": { run: settleReplicated, executedAs: { redis: onPrimary, command: ['evalsha', settleSha] } },
    };
    const summaries = await timeInterleaved(
      Object.fromEntries(Object.entries(kinds).map(([name, { run }]) => [name, run])),
      options,
      {
        onWarmedUp: async () => {
          await Promise.all([onAlways, onPrimary].map(logEveryCommand));
        },
      },
    );
    const slowlogs = await slowlogsOf([onAlways, onPrimary]);
    console.log(`\n${machineLine()}\n${measuredCalls(options)} calls of each kind, ${options.gapMs} ms apart, interleaved; ms:\n`);
    console.log('| call | p50 | p90 | p99 | executing in Redis, p50 |\n| --- | --- | --- | --- | --- |');
    for (const [name, { p50, p90, p99 }] of summaries) {
      const executed = kinds[name]?.executedAs;
      const executing = executed ? medianExecution(slowlogs.get(executed.redis) ?? [], executed.command).toFixed(3) : '';
      console.log(`| ${name} | ${p50.toFixed(3)} | ${p90.toFixed(3)} | ${p99.toFixed(3)} | ${executing} |`);
    }
  } finally {
    for (const client of clients) client.disconnect();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
