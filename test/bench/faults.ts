/**
 * `npm run bench:faults`: what each fault costs the callers and the ledger.
 * The whole stack runs as separate processes on a Postgres database and a
 * Redis of this run's own (a redis-server on a free port, with AOF as
 * production runs it; never the shared one), crashed processes restarted as
 * Kubernetes would. For each fault, RATE req/s of chat requests to edge on
 * 127.0.0.1 for a bounded count, the fault injected a few seconds in:
 *
 * - ledger killed (SIGKILL; restarted by the stack after its backoff),
 * - auth killed (the same),
 * - Postgres backends terminated repeatedly (every backend of this run's database, once a second),
 * - Redis killed and started again (its append-only file reloaded),
 * - one request with a NUL byte in its model name in the middle of the load,
 *
 * and a run with no fault to compare. Each fault's requests come from an
 * organization of their own, so its rows in Postgres are its own. Prints one
 * table: requests sent, answers by status, answers that said
 * `x-service-metered: true`, their records in Postgres, lost (said metered,
 * absent), duplicated, recorded although the answer said unmetered, and the
 * seconds from the service being back (SERVING, Redis answering, the last
 * termination) to the first request that was served and metered again.
 * Asserts nothing; stops by itself.
 *
 * Options: --seconds N (each fault's load, default 20), --rate N (default 100).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { Pool } from 'undici';
import { z } from 'zod';
import { AUTH_SCHEMA, type AuthDatabase } from '@gateway/auth/db';
import { connectDatabase } from '@gateway/lib/db';
import { createTestDatabase } from '../support/databases';
import { reportedServingAt, type ServiceProcess } from '../support/processes';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { startStack, type ServiceName, type Stack } from '../support/stack';
import { LOCAL_RESTART_POLICY } from '../support/supervisor';
import { seedCaller, type Caller } from '../e2e/support/seed';
import { prepareBenchEnvironment } from './support/environment';
import { chatSender, settledRecords, type Answer } from './support/fault-answers';
import { runPaced } from './support/load';
import { machineLine } from './support/stats';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, rate: { type: 'string' } } });
const seconds = z.coerce.number().positive().max(120).default(20).parse(values.seconds);
const rate = z.coerce.number().int().positive().max(500).default(100).parse(values.rate);
/** When the fault is injected, into each run. */
const FAULT_AFTER_MS = 3000;
/** Postgres fault: rounds of terminations, one a second. */
const TERMINATION_ROUNDS = 8;
/** Redis fault: how long it stays down before it is started again (a container's restart). */
const REDIS_DOWN_MS = 1000;
/**
 * How long the run waits for records that have not reached Postgres while
 * none arrives: beyond the ledger writer's claim of a dead consumer's
 * records (WRITER_CLAIM_IDLE_MS, 30 s) and its retry backoff.
 */
const RECORDS_QUIET_MS = 45_000;

/** The runs below: no fault, then the five faults. */
const FAULT_COUNT = 6;

const BODY = { model: 'auto', messages: [{ role: 'user', content: 'Hello! What is a gateway, in one sentence?' }] };

interface Fault {
  name: string;
  /** Injects the fault; resolves with when it was over (the service back), or undefined when nothing had to come back. */
  inject(): Promise<number | undefined>;
}

/** Polls until `probe` gives a value. */
async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

/** Kills a service's process from outside (a crash to the stack, which restarts it) and resolves when its successor reports SERVING. */
async function crash(stack: Stack, name: ServiceName): Promise<number> {
  const killed = stack.services[name];
  process.kill(killed.pid, 'SIGKILL');
  const successor = await until<ServiceProcess>(() => (stack.services[name] !== killed ? stack.services[name] : undefined), `${name} restarted`);
  return until(() => reportedServingAt(successor), `${name} reporting SERVING`);
}

/** Ends every connection to the run's own database but this one, `rounds` times a second apart. */
async function terminateBackends(databaseUrl: string, rounds: number): Promise<number> {
  let ended = 0;
  for (let round = 0; round < rounds; round += 1) {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const result = await client.query<{ ended: string }>(
        'select count(pg_terminate_backend(pid)) as ended from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      ended += Number(result.rows[0]?.ended ?? 0);
    } finally {
      await client.end();
    }
    if (round < rounds - 1) await sleep(1000);
  }
  console.log(`  ${ended} Postgres connections ended over ${rounds} rounds`);
  return Date.now();
}

async function restartRedis(redis: RedisServer): Promise<number> {
  await redis.kill();
  await sleep(REDIS_DOWN_MS);
  await redis.start();
  return Date.now();
}

async function nulRequest(pool: Pool, key: string): Promise<undefined> {
  const response = await pool.request({
    path: '/api/gateway/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ ...BODY, model: 'auto\u0000' }),
  });
  const text = await response.body.text();
  console.log(`  the NUL request was answered ${response.statusCode}: ${text.slice(0, 160)}`);
  return undefined;
}

interface Row {
  fault: string;
  sent: number;
  statuses: string;
  metered: number;
  inPostgres: number;
  lost: number;
  duplicated: number;
  unmeteredButRecorded: number;
  recovery: string;
}

function byStatus(answers: readonly Answer[], errors: Record<string, number>): string {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
  for (const [reason, count] of Object.entries(errors)) if (!reason.startsWith('status ')) counts.set(reason, (counts.get(reason) ?? 0) + count);
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
}

/** From the fault's end to the first request sent after it that was served and metered. */
function recoverySeconds(answers: readonly Answer[], clearedAt: number | undefined): string {
  if (clearedAt === undefined) return 'n/a';
  const first = answers.filter((answer) => answer.sentAt >= clearedAt && answer.status === 200 && answer.metered).sort((a, b) => a.sentAt - b.sentAt)[0];
  return first ? ((first.sentAt - clearedAt) / 1000).toFixed(2) : 'not within the run';
}

async function main(): Promise<void> {
  const infra = await prepareBenchEnvironment('faults');
  const database = await createTestDatabase('bench_faults');
  const redis = await startRedisServer({ persistence: 'aof' });
  const restarts: string[] = [];
  let stack: Stack | undefined;
  let pool: Pool | undefined;
  try {
    stack = await startStack({
      databaseUrl: database.url,
      redisUrl: redis.url,
      restartCrashed: {
        ...LOCAL_RESTART_POLICY,
        log: (line) => {
          restarts.push(line);
          console.log(`  stack: ${line}`);
        },
      },
    });
    const running = stack;
    const edge = new Pool(running.baseUrl, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
    pool = edge;
    const auth = connectDatabase<AuthDatabase>({ kind: 'postgres', url: database.url, poolSize: 1 }, AUTH_SCHEMA);
    const secretsKey = Buffer.from(running.secretsKey, 'hex');
    // One organization for the probes between runs, and one per fault: its rows in Postgres are that run's.
    const seed = () => seedCaller(auth.db, secretsKey, { plan: 'simulated' });
    const probe = await seed();
    const faultCallers: Caller[] = [];
    for (let fault = 0; fault < FAULT_COUNT; fault += 1) faultCallers.push(await seed());
    await auth.destroy();

    /** Until the stack serves and meters again (between runs, so one fault's tail is not the next one's). */
    const healthy = () =>
      until(async () => {
        const answers: Answer[] = [];
        await chatSender(edge, probe.key, answers, BODY)().catch(() => undefined);
        return answers[0]?.status === 200 && answers[0].metered ? true : undefined;
      }, 'the stack serving metered answers');

    const faults: Fault[] = [
      { name: 'none', inject: async () => undefined },
      { name: 'ledger killed', inject: () => crash(running, 'ledger') },
      { name: 'auth killed', inject: () => crash(running, 'auth') },
      { name: `Postgres backends terminated (${TERMINATION_ROUNDS} rounds, 1/s)`, inject: () => terminateBackends(database.url, TERMINATION_ROUNDS) },
      { name: `Redis killed, restarted after ${REDIS_DOWN_MS / 1000} s`, inject: () => restartRedis(redis) },
      { name: 'one NUL request', inject: () => nulRequest(edge, faultCallers[FAULT_COUNT - 1]?.key ?? '') },
    ];

    console.log('Warming up...');
    await healthy();
    await runPaced({ rate, durationMs: 3000, send: chatSender(edge, probe.key, [], BODY) });

    const rows: Row[] = [];
    for (const [index, fault] of faults.entries()) {
      const caller = faultCallers[index];
      if (!caller) throw new Error('a fault without its caller');
      await healthy();
      console.log(`${fault.name}: ${rate} req/s for ${seconds} s, the fault after ${FAULT_AFTER_MS / 1000} s`);
      const answers: Answer[] = [];
      const load = runPaced({ rate, durationMs: seconds * 1000, send: chatSender(edge, caller.key, answers, BODY) });
      const cleared = sleep(FAULT_AFTER_MS).then(() => fault.inject());
      const [result, clearedAt] = await Promise.all([load, cleared]);
      const stored = await settledRecords(database.url, caller.organizationId, answers, RECORDS_QUIET_MS);
      const meteredAnswers = answers.filter((answer) => answer.metered);
      rows.push({
        fault: fault.name,
        sent: result.sent,
        statuses: byStatus(answers, result.failures),
        metered: meteredAnswers.length,
        inPostgres: stored.traced.size,
        lost: meteredAnswers.filter((answer) => !stored.traced.has(answer.requestId)).length,
        duplicated: stored.duplicated,
        unmeteredButRecorded: answers.filter((answer) => !answer.metered && stored.traced.has(answer.requestId)).length,
        recovery: recoverySeconds(answers, clearedAt),
      });
      console.log(`  ${JSON.stringify(rows.at(-1))}`);
    }

    console.log('');
    console.log(`Faults under load: ${rate} req/s of chat requests for ${seconds} s each, the fault after ${FAULT_AFTER_MS / 1000} s; the stack's own database and Redis (AOF, appendfsync always); crashed processes restarted after 1 s.`);
    console.log(`${machineLine()}; load average ${loadavg().map((load) => load.toFixed(1)).join(' / ')}`);
    console.log('');
    console.log('| Fault | Sent | Answers by status | Said metered | In Postgres | Lost | Duplicated | Recorded, said unmetered | Recovery (s) |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      console.log(`| ${row.fault} | ${row.sent} | ${row.statuses} | ${row.metered} | ${row.inPostgres} | ${row.lost} | ${row.duplicated} | ${row.unmeteredButRecorded} | ${row.recovery} |`);
    }
    console.log('');
    console.log(restarts.length === 0 ? 'No process crashed on its own.' : `Restarts by the stack:\n${restarts.map((line) => `  ${line}`).join('\n')}`);
    console.log('Target: 0 lost, 0 duplicated, every metered answer in Postgres, recovery <= 1 s after the service is back.');
  } finally {
    await pool?.close();
    await stack?.stop();
    await redis.stop();
    await database.drop();
    await infra.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
