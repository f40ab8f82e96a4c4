/**
 * `npm run bench:compare`: this gateway beside Portkey's open-source gateway,
 * in one run, against the same upstream. It starts a minimal OpenAI-compatible
 * upstream (its own process), Portkey's gateway (its own process, headless,
 * production), this gateway's stack as deployed (two edge replicas, every
 * service its own process, NODE_ENV=production, the log level deploy/base
 * sets, every trace exported as deploy/base has it, a Redis of its own persisting as production's must)
 * pointed at that upstream, and the embedded mode
 * (`npm start`, against its own built-in simulator). Then it runs
 * interleaved rounds, each with:
 *   (a) 200 req/s non-streamed, open loop: p50/p99 and the latency added over
 *       calling the upstream directly in the same round;
 *   (b) a ladder of paced rates: the highest held with no errors and p99 added
 *       under 25 ms (Portkey and the stack);
 *   (c) streamed, 50 req/s: time to first byte, added over direct.
 * Beside them runs the hot path's floor: the design's hops with none of the
 * gateway's code in them (two bare edge processes, one record each on a bare
 * gRPC stream to a bare ledger process, one Redis script there), so that
 * what our code costs can be told from what the hops cost on this machine.
 * Around the stack's run of (a) it also scrapes the stack's own metrics:
 * edge's request, its provider call and its record's round trip, and the
 * ledger's handling of the record, as means; and how busy edge's and the
 * ledger's event loops were and what their garbage collections took.
 * Every run reads the CPU of every process from /proc over its window and
 * divides it by the requests sent, and says how busy the machine was and how
 * much of that was other users'. Prints each round, then medians over rounds
 * with our added latency as a ratio to Portkey's in the same round. Asserts
 * no time; traffic goes only to 127.0.0.1; every process it starts it stops.
 *
 * Options: --rounds N (default 3), --seconds N (each run of a and c, default
 * 10), --step-seconds N (each rung of the ladder, default 5), --ladder
 * 50,100,... (the rates tried), --embedded false (leave the embedded mode out),
 * --floor false (leave the hot path's floor out: see below), --warm-up-seconds N (each contestant's
 * non-streamed warm-up at the rate of a before the rounds, default 30),
 * --parts a,c (only some of the three; a profile of the stack at 200 req/s
 * needs only a), --rate N (the rate of a, default 200), --runtime compiled|tsx (the stack's services as
 * the images run them, built first, or through tsx; default compiled), --profile edge,router (run those services of the stack,
 * or `embedded`, or `floor`, under `node --cpu-prof`; `npm run bench:profile` summarizes what they write),
 * --redis-persistence aof|none (the stack's and the floor's Redis: `aof`, the default, with `appendfsync always`
 * as deploy/README.md requires, an fsync before every reply; `none` to read what that costs),
 * --callers N (the stack's requests come from N callers, each its own organization and key, each
 * request's picked at random; default 1: most keys call far less often than the one busy key of the
 * default, and what edge holds per subject, its principal cache and its allowance leases, is read
 * with many), --lead-in-seconds N (unmeasured traffic at the rate of a, to the same contestant, just
 * before each of its runs of a; default 0 with one caller, 40 with many: what edge held for them from
 * the warm-up has lapsed in the minute the other contestants ran, and a run would measure that; 40 s
 * is longer than the principal cache's TTL, so the run reads the steady state), --traces exported|none
 * (`exported`, the default: the stack records every trace and exports it over OTLP/HTTP as deploy/base's
 * telemetry ConfigMap has it do, to a receiver of its own standing in for the overlay's collector, whose
 * CPU is counted apart; `none`: no exporter, so no span is recorded, to read what tracing costs).
 */
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { parseAllDocuments } from 'yaml';
import { z } from 'zod';
import { AUTH_SCHEMA, type AuthDatabase } from '@gateway/auth/db';
import { connectDatabase } from '@gateway/lib/db';
import { createRedis } from '@gateway/lib/redis';
import type { Redis } from 'ioredis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '../support/databases';
import { buildAll, SERVICE_NODE_FLAGS } from '../../deploy/build';
import { REPO_ROOT } from '../support/paths';
import { serviceNames, startStack, type ServiceName, type Stack } from '../support/stack';
import { seedCaller, type Caller } from '../e2e/support/seed';
import { holds, measure, type Arena, type Contestant, type ContestantName, type Measured } from './support/contest';
import { printReport, type Ladder, type Round } from './support/compare-report';
import { startEmbeddedGateway, type EmbeddedGateway } from './support/embedded';
import { startHotPathFloor, type HotPathFloor } from './support/floor';
import { prepareBenchEnvironment } from './support/environment';
import { startHelperProcess, type HelperProcess } from './support/helper-process';
import { bearer, completion, firstByte, httpTarget, type HttpTarget } from './support/http-target';
import { runPaced } from './support/load';
import { ratesOption } from './support/options';
import { portkeyHeaders, startPortkey, type PortkeyGateway } from './support/portkey';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server';
import { monitorRedisStalls } from './support/redis-stalls';
import { receivedTraces, TRACE_RECEIVER } from './support/trace-receiver';
import { phaseMeans, readPhases, type PhaseMeans, type PhaseTotals, type ScrapedProcess } from './support/stack-phases';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    'step-seconds': { type: 'string' },
    ladder: { type: 'string' },
    embedded: { type: 'string' },
    floor: { type: 'string' },
    parts: { type: 'string' },
    profile: { type: 'string' },
    rate: { type: 'string' },
    runtime: { type: 'string' },
    'warm-up-seconds': { type: 'string' },
    'redis-persistence': { type: 'string' },
    callers: { type: 'string' },
    'lead-in-seconds': { type: 'string' },
    traces: { type: 'string' },
  },
});
const rounds = z.coerce.number().int().min(1).max(20).default(3).parse(values.rounds);
const seconds = z.coerce.number().positive().default(10).parse(values.seconds);
/**
 * A service process in production has served many thousands of requests; V8 compiles a function
 * called once per request with its optimizing tier only after about a thousand calls, so a short
 * warm-up measures the JIT's first seconds rather than the gateway (docs/performance.md).
 */
const warmUpSeconds = z.coerce.number().positive().default(30).parse(values['warm-up-seconds']);
const stepSeconds = z.coerce.number().positive().default(5).parse(values['step-seconds']);
const ladderRates = ratesOption(values.ladder, [50, 100, 200, 300, 400, 500, 600, 700, 800, 1000, 1200, 1400, 1600, 2000]).sort((a, b) => a - b);
const RATE = z.coerce.number().int().positive().default(200).parse(values.rate);
const withEmbedded = z.enum(['true', 'false']).default('true').parse(values.embedded) === 'true';
const withFloor = z.enum(['true', 'false']).default('true').parse(values.floor) === 'true';
/** `compiled` (the default): the stack runs `npm run build`'s JavaScript, as the images do; `tsx`: the TypeScript sources. */
const runtime = z.enum(['compiled', 'tsx']).default('compiled').parse(values.runtime);
/** A record is durable once its Redis has fsynced it: production runs `aof` (deploy/README.md), so the comparison does too. */
const redisPersistence = z.enum(['aof', 'none']).default('aof').parse(values['redis-persistence']);
const callerCount = z.coerce.number().int().min(1).max(10_000).default(1).parse(values.callers);
/** With many callers, a lead-in longer than the TTLs of what edge holds per caller (docs/performance.md, "Many callers"). */
const MANY_CALLERS_LEAD_IN_SECONDS = 40;
const leadInSeconds = z.coerce
  .number()
  .min(0)
  .default(callerCount > 1 ? MANY_CALLERS_LEAD_IN_SECONDS : 0)
  .parse(values['lead-in-seconds']);
/** Traces are recorded and exported in production (deploy/base/telemetry.yaml), so the comparison does too. */
const traces = z.enum(['exported', 'none']).default('exported').parse(values.traces);
/** Callers seeded at once: each is an organization, an owner whose password is hashed, and a key. */
const SEEDING_CONCURRENCY = 8;
const profiled = z
  .string()
  .default('')
  .transform((text) => text.split(',').filter(Boolean))
  .pipe(z.array(z.enum([...serviceNames, 'embedded', 'floor'])))
  .parse(values.profile);
const parts = new Set(
  z
    .string()
    .default('a,b,c')
    .transform((text) => text.split(','))
    .pipe(z.array(z.enum(['a', 'b', 'c'])).min(1))
    .parse(values.parts),
);

const STREAM_RATE = 50;
const HOLD_P99_ADDED_MS = 25;
const EDGE_REPLICAS = 2;
/** The streamed warm-up: its connections and code paths, once the non-streamed warm-up has made the shared ones hot. */
const STREAM_WARM_UP_MS = 3000;
const GATEWAY_PATH = '/api/gateway/v1/chat/completions';
/** A short chat turn: what most gateway traffic looks like. */
const MESSAGES = [{ role: 'user', content: 'Hello! Can you tell me what a gateway is, in one sentence?' }];
/** What edge asks every upstream for on a stream, so every contestant's upstream does the same work. */
const STREAM_OPTIONS = { stream: true, stream_options: { include_usage: true } };

/** The data of the first ConfigMap of a file of deploy/base, if it has one. */
function deployedConfigMap(file: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(join(REPO_ROOT, 'deploy', 'base', file), 'utf8');
  } catch {
    return undefined;
  }
  for (const document of parseAllDocuments(text)) {
    const manifest = document.toJS() as { kind?: string; data?: Record<string, string> } | null;
    if (manifest?.kind === 'ConfigMap' && manifest.data) return manifest.data;
  }
  return undefined;
}

/** The log level deploy/base gives a service (its ConfigMap's LOG_LEVEL), if it deploys one. */
function deployedLogLevel(service: ServiceName): string | undefined {
  return deployedConfigMap(`${service}.yaml`)?.LOG_LEVEL;
}

/** deploy/base's telemetry settings, with the receiver in the collector's place. */
function deployedTelemetry(receiverPort: number): Record<string, string> {
  const telemetry = deployedConfigMap('telemetry.yaml');
  if (!telemetry?.OTEL_EXPORTER_OTLP_ENDPOINT) throw new Error('deploy/base/telemetry.yaml sets no OTLP endpoint: there is no deployed export to measure');
  return { ...telemetry, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}` };
}

function contestant(name: ContestantName, json: HttpTarget, stream: HttpTarget, processes: () => Promise<Record<string, number[]>>): Contestant {
  return { name, json: completion(json), stream: (timings) => firstByte(stream, timings), processes };
}

/** The Postgres backends serving one database right now (the stack's connections). */
async function postgresBackends(adminUrl: string, database: string): Promise<number[]> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
    return rows.map(({ pid }) => pid);
  } finally {
    await client.end();
  }
}

/** `readStackPhases` reads the stack's own metrics around its run of (a), for where its time goes. */
async function runRound(arena: Arena, order: Contestant[], direct: Contestant, readStackPhases: () => Promise<PhaseTotals>): Promise<Round> {
  const json = new Map<ContestantName, Measured>();
  const stream = new Map<ContestantName, Measured>();
  let phases: PhaseMeans | undefined;
  if (parts.has('a')) {
    console.log(`  (a) ${RATE} req/s non-streamed`);
    for (const each of [direct, ...order]) {
      if (leadInSeconds > 0) await runPaced({ rate: RATE, durationMs: leadInSeconds * 1000, send: each.json });
      const before = each.name === 'gateway' ? await readStackPhases() : undefined;
      json.set(each.name, await measure(arena, each, RATE, seconds * 1000, 'json'));
      if (before) phases = phaseMeans(before, await readStackPhases());
    }
  }
  if (parts.has('c')) {
    console.log(`  (c) ${STREAM_RATE} req/s streamed`);
    for (const each of [direct, ...order]) stream.set(each.name, await measure(arena, each, STREAM_RATE, seconds * 1000, 'stream'));
  }
  const ladder = parts.has('b') ? await climb(arena, order.filter((each) => each.name !== 'embedded'), direct, readStackPhases) : new Map<ContestantName, Ladder>();
  return { json, stream, ladder, phases };
}

/**
 * Up the ladder until each contestant fails a rung; its highest is the last rung it held before the
 * first it failed. `readStackPhases` reads the stack's own metrics around each of its rungs: what its
 * runtimes and its Redis did there.
 */
async function climb(arena: Arena, climbers: Contestant[], direct: Contestant, readStackPhases: () => Promise<PhaseTotals>): Promise<Map<ContestantName, Ladder>> {
  const ladders = new Map<ContestantName, Ladder>(climbers.map((each) => [each.name, { held: undefined, failed: undefined }]));
  let climbing = [...climbers];
  for (const rate of ladderRates) {
    if (climbing.length === 0) break;
    const directRun = await measure(arena, direct, rate, stepSeconds * 1000, 'json');
    const line: string[] = [];
    for (const each of climbing) {
      const before = each.name === 'gateway' ? await readStackPhases() : undefined;
      const run = await measure(arena, each, rate, stepSeconds * 1000, 'json');
      const rung = { run, direct: directRun, phases: before && phaseMeans(before, await readStackPhases()) };
      const ladder = ladders.get(each.name) as Ladder;
      if (holds(run, directRun, HOLD_P99_ADDED_MS)) ladder.held = rung;
      else ladder.failed = rung;
      line.push(`${each.name} ${ladder.failed ? 'failed' : 'held'}`);
    }
    console.log(`  (b) ${rate} req/s: ${line.join(', ')}`);
    climbing = climbing.filter((each) => ladders.get(each.name)?.failed === undefined);
  }
  return ladders;
}

async function main(): Promise<void> {
  const infra = await prepareBenchEnvironment('compare');
  const profileDir = join(infra.logDir, 'profiles');
  const profiling = Object.fromEntries(profiled.map((service) => [service, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]]));
  let upstream: HelperProcess | undefined;
  let traceReceiver: HelperProcess | undefined;
  let portkey: PortkeyGateway | undefined;
  let redis: PrivateRedis | undefined;
  /** The bench's own connection to the stack's Redis, for Redis's latency monitor. */
  let stackRedis: Redis | undefined;
  let stack: Stack | undefined;
  let embedded: EmbeddedGateway | undefined;
  let floor: HotPathFloor | undefined;
  const database = await createTestDatabase('bench_compare');
  const targets: HttpTarget[] = [];
  try {
    upstream = await startHelperProcess('test/bench/support/upstream-mock.ts');
    const upstreamBaseUrl = `http://127.0.0.1:${upstream.port}/v1`;
    portkey = await startPortkey();
    redis = await startPrivateRedis(redisPersistence);
    const logLevels = Object.fromEntries(
      serviceNames.flatMap((service) => {
        const level = deployedLogLevel(service);
        return level ? [[service, { LOG_LEVEL: level }]] : [];
      }),
    );
    if (runtime === 'compiled') await buildAll(serviceNames, { quiet: true });
    if (traces === 'exported') traceReceiver = await startHelperProcess('test/bench/support/otlp-receiver.ts');
    stack = await startStack({
      compiled: runtime === 'compiled',
      databaseUrl: database.url,
      redisUrl: redis.url,
      upstreamBaseUrl,
      env: { NODE_ENV: 'production', ...(traceReceiver ? deployedTelemetry(traceReceiver.port) : {}) },
      serviceEnv: logLevels,
      nodeArgs: profiling,
      readyTimeoutMs: 120_000,
    });
    const edges = [stack.baseUrl];
    for (let replica = 1; replica < EDGE_REPLICAS; replica += 1) edges.push(`http://127.0.0.1:${(await stack.startReplica('edge')).port}`);
    if (withEmbedded) embedded = await startEmbeddedGateway({ nodeArgs: profiling.embedded ?? [] });

    const auth = connectDatabase<AuthDatabase>({ kind: 'postgres', url: database.url, poolSize: SEEDING_CONCURRENCY }, AUTH_SCHEMA);
    const secretsKey = Buffer.from(stack.secretsKey, 'hex');
    const callers: Caller[] = [];
    while (callers.length < callerCount) {
      const batch = Math.min(SEEDING_CONCURRENCY, callerCount - callers.length);
      // The largest allowance: a run that queues holds many requests' worst-case cost at once, and must not meet a 402.
      callers.push(...(await Promise.all(Array.from({ length: batch }, () => seedCaller(auth.db, secretsKey, { plan: 'enterprise' })))));
    }
    await auth.destroy();
    const [caller] = callers;
    if (!caller) throw new Error('no caller was seeded');

    // One call says which model `auto` is served by; the upstream and Portkey are asked for it by name.
    const probe = await fetch(`${stack.baseUrl}${GATEWAY_PATH}`, {
      method: 'POST',
      headers: { ...bearer(caller.key), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: MESSAGES }),
    });
    await probe.text();
    const servedModel = probe.headers.get('x-service-model');
    if (probe.status !== 200 || !servedModel) throw new Error(`the gateway answered ${probe.status} to the probe call`);

    const named = { model: servedModel, messages: MESSAGES };
    const routed = { model: 'auto', messages: MESSAGES };
    const upstreamOrigin = `http://127.0.0.1:${upstream.port}`;
    const pair = (origins: string[], path: string, headers: Record<string, string> | Record<string, string>[], body: Record<string, unknown>, streamBody: Record<string, unknown>) => {
      const both = [httpTarget(origins, path, headers, body), httpTarget(origins, path, headers, streamBody)] as const;
      targets.push(...both);
      return both;
    };
    const stackPids = stack.processes();
    const phaseProcesses = stackPids.flatMap(({ name, metricsPort }): ScrapedProcess[] => ((name === 'edge' || name === 'ledger') && metricsPort ? [{ kind: name, metricsPort }] : []));
    const latencyMonitor = createRedis(redis.url, { name: 'bench-latency-monitor' });
    stackRedis = latencyMonitor;
    await monitorRedisStalls(latencyMonitor);
    const gatewayProcesses = async () => {
      const named: Record<string, number[]> = {};
      let edgeReplica = 0;
      for (const service of stackPids) {
        if (service.name === 'simulator') continue;
        named[service.name === 'edge' ? `edge#${(edgeReplica += 1)}` : service.name] = [service.pid];
      }
      return { ...named, redis: [redis?.pid ?? -1], postgres: await postgresBackends(infra.databaseUrl, new URL(database.url).pathname.slice(1)) };
    };
    const direct = contestant('direct', ...pair([upstreamOrigin], '/v1/chat/completions', bearer('bench'), named, { ...named, ...STREAM_OPTIONS }), async () => ({}));
    const portkeyHeadersFor = { ...bearer('bench'), ...portkeyHeaders(upstreamBaseUrl) };
    const contestants: Contestant[] = [
      contestant('portkey', ...pair([portkey.origin], '/v1/chat/completions', portkeyHeadersFor, named, { ...named, ...STREAM_OPTIONS }), async () => ({
        portkey: [portkey?.pid ?? -1],
      })),
      contestant('gateway', ...pair(edges, GATEWAY_PATH, callers.map(({ key }) => bearer(key)), routed, { ...routed, stream: true }), gatewayProcesses),
    ];
    if (withFloor) {
      // The floor's processes run with the services' Node flags: they stand for the same pods.
      floor = await startHotPathFloor({ upstreamOrigin, servedModel, edgeReplicas: EDGE_REPLICAS, redisPersistence, nodeArgs: [...SERVICE_NODE_FLAGS, ...(profiling.floor ?? [])] });
      const processes = floor.processes;
      contestants.push(contestant('floor', ...pair(floor.origins, '/v1/chat/completions', bearer('bench'), named, { ...named, stream: true }), async () => processes));
    }
    if (embedded) {
      const { pid } = embedded;
      contestants.push(contestant('embedded', ...pair([embedded.origin], GATEWAY_PATH, bearer(embedded.apiKey), routed, { ...routed, stream: true }), async () => ({ embedded: [pid] })));
    }
    const arena: Arena = {
      contestants: [direct, ...contestants],
      shared: { upstream: [upstream.pid], generator: [process.pid], ...(traceReceiver ? { [TRACE_RECEIVER]: [traceReceiver.pid] } : {}) },
    };

    console.log('Warming up (JIT, connection pools, caches, the period\'s quota counters)...');
    for (const each of arena.contestants) {
      await measure(arena, each, RATE, warmUpSeconds * 1000, 'json');
      await measure(arena, each, STREAM_RATE, STREAM_WARM_UP_MS, 'stream');
    }

    const results: Round[] = [];
    for (let round = 0; round < rounds; round += 1) {
      // Each round starts with a different contestant, so no one always runs first (or right after another).
      const order = contestants.map((_, index) => contestants[(index + round) % contestants.length] as Contestant);
      console.log(`Round ${round + 1} of ${rounds} (${order.map(({ name }) => name).join(', ')}):`);
      results.push(await runRound(arena, order, direct, () => readPhases(phaseProcesses, latencyMonitor)));
    }

    printReport(results, {
      rate: RATE,
      streamRate: STREAM_RATE,
      warmUpSeconds: { json: warmUpSeconds, stream: STREAM_WARM_UP_MS / 1000 },
      holdP99AddedMs: HOLD_P99_ADDED_MS,
      topRung: ladderRates[ladderRates.length - 1] ?? 0,
      servedModel,
      edgeReplicas: EDGE_REPLICAS,
      callers: callerCount,
      leadInSeconds,
      logLevels: Object.fromEntries(Object.entries(logLevels).map(([service, { LOG_LEVEL }]) => [service, LOG_LEVEL])),
      runtime: runtime === 'compiled' ? 'compiled JavaScript (npm run build), as the images run it' : 'TypeScript through tsx',
      withEmbedded: embedded !== undefined,
      redisPersistence,
      withFloor: floor !== undefined,
      tracesExported: traceReceiver !== undefined,
    });
    if (traceReceiver) console.log(`\nThe trace receiver took ${await receivedTraces(traceReceiver.port)} over the whole run.`);
  } finally {
    await Promise.all(targets.map((target) => target.close()));
    await embedded?.stop();
    await floor?.stop();
    stackRedis?.disconnect();
    await stack?.stop();
    await portkey?.stop();
    await upstream?.stop();
    await traceReceiver?.stop();
    await redis?.stop();
    await database.drop();
    await infra.stop();
  }
  if (profiled.length > 0) console.log(`\nCPU profiles of ${profiled.join(', ')} (written as they exited): ${profileDir}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
