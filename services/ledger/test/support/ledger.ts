import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Client } from 'pg';
import { DEFAULT_CATALOG_PATH } from '@gateway/lib/catalog';
import { connectDatabase, type Database } from '@gateway/lib/db';
import { createPromiseClient, type PromiseClient } from '@gateway/lib/grpc';
import { LedgerServiceService, type RecordRequest, type Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../../test/support/databases';
import { startService, type ServiceProcess } from '../../../../test/support/processes';
import { LEDGER_SCHEMA, type LedgerDatabase } from '../../src/db';

export type LedgerClient = PromiseClient<typeof LedgerServiceService>;

/**
 * Plans the suites need beside the shipped ones: an allowance small enough to
 * exhaust in a few calls, and a plan metered in requests.
 */
export const TEST_PLANS = {
  /** $0.001 (1,000 micro-dollars) a month; BYOK traffic: 10 requests. */
  tiny: { meter: 'spend', monthly_allowance_usd: '0.001', byok_requests_per_month: 10 },
  /** 4 requests a month for managed traffic too. */
  counted: { meter: 'requests', byok_requests_per_month: 4 },
} as const;

export interface TestCatalog {
  path: string;
  remove(): void;
}

/** The shipped catalog plus TEST_PLANS, in a temporary file (CATALOG_PATH). */
export function writeTestCatalog(): TestCatalog {
  const catalog = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8')) as { plans: Record<string, Record<string, unknown>> };
  const base = catalog.plans.free;
  if (!base) throw new Error('the shipped catalog has no "free" plan to base the test plans on');
  for (const [name, plan] of Object.entries(TEST_PLANS)) {
    catalog.plans[name] = { ...base, description: `test plan ${name}`, monthly_allowance_usd: undefined, ...plan };
  }
  const directory = mkdtempSync(join(tmpdir(), 'ledger-catalog-'));
  const path = join(directory, 'catalog.json');
  writeFileSync(path, JSON.stringify(catalog));
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** A Redis key prefix of its own, so suites sharing the server never share a stream or counters. */
export function uniquePrefix(label: string): string {
  return `test-ledger-${label}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key a suite wrote under its prefix. */
export async function clearRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${prefix}:*`, count: 500 })) keys.push(...(batch as string[]));
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export interface LedgerProcessOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  catalogPath: string;
  env?: Record<string, string>;
}

export function startLedger({ databaseUrl, redisUrl, prefix, catalogPath, env = {} }: LedgerProcessOptions): Promise<ServiceProcess> {
  return startService({
    name: 'ledger',
    entry: 'services/ledger/src/main.ts',
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      CATALOG_PATH: catalogPath,
      MIGRATE_ON_START: 'true',
      ...env,
    },
  });
}

export function ledgerClient(address: string, deadlineMs = 5000): LedgerClient {
  return createPromiseClient(LedgerServiceService, { serviceName: 'ledger', address, deadlineMs });
}

export function ledgerDatabase(url: string): Database<LedgerDatabase> {
  return connectDatabase<LedgerDatabase>({ kind: 'postgres', url, poolSize: 4 }, LEDGER_SCHEMA);
}

/**
 * What a suite of ledger processes shares: a database of its own, the test
 * catalog, a Redis prefix of its own, and every process and client it
 * started, all ended by close().
 */
export interface LedgerSuite {
  database: TestDatabase;
  db: Database<LedgerDatabase>;
  prefix: string;
  /** The suite's catalog file (the test catalog), which a test may change. */
  catalogPath: string;
  start(env?: Record<string, string>, deadlineMs?: number): Promise<{ ledger: ServiceProcess; client: LedgerClient }>;
  close(): Promise<void>;
}

export async function openLedgerSuite(label: string): Promise<LedgerSuite> {
  const prefix = uniquePrefix(label);
  const database = await createTestDatabase(`ledger_${label}`);
  const catalog = writeTestCatalog();
  const db = ledgerDatabase(database.url);
  const processes: ServiceProcess[] = [];
  const clients: LedgerClient[] = [];
  return {
    database,
    db,
    prefix,
    catalogPath: catalog.path,
    start: async (env = {}, deadlineMs = 5000) => {
      const ledger = await startLedger({ databaseUrl: database.url, redisUrl: testRedisUrl(), prefix, catalogPath: catalog.path, env });
      processes.push(ledger);
      const client = ledgerClient(ledger.address, deadlineMs);
      clients.push(client);
      return { ledger, client };
    },
    close: async () => {
      for (const client of clients) client.close();
      await Promise.all(processes.map((ledger) => ledger.stop()));
      await db.destroy();
      await clearRedisPrefix(testRedisUrl(), prefix);
      catalog.remove();
      await database.drop();
    },
  };
}

/**
 * The sum of a metric's series in a process's Prometheus scrape, over the
 * series that carry every label given; undefined when the process does not
 * answer (it is gone).
 */
export async function scrapeMetric(ledger: ServiceProcess, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  let text: string;
  try {
    text = await (await fetch(`http://127.0.0.1:${ledger.metricsPort}/metrics`)).text();
  } catch {
    return undefined;
  }
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const series = match[2] ?? '';
    if (wanted.every((pair) => series.includes(pair))) sum += Number(match[3]);
  }
  return sum;
}

/** A W3C trace id, the shape of every request id. */
export function newRequestId(): string {
  return randomBytes(16).toString('hex');
}

export function subject(overrides: Partial<Subject> = {}): Subject {
  return {
    organizationId: randomUUID(),
    agentId: '',
    planTier: 'tiny',
    byok: false,
    messagesLimit: '0',
    enforce: true,
    ...overrides,
  };
}

/** A Record of a successful, priced, non-streamed call. */
export function recordOf(who: Subject, overrides: Partial<RecordRequest> = {}): RecordRequest {
  return {
    subject: who,
    requestId: newRequestId(),
    reservationId: '',
    leaseId: '',
    apiKeyId: randomUUID(),
    principal: 'api_key',
    clientLabel: 'ledger-test',
    userAgent: 'jest',
    requestedModel: 'auto',
    servedModel: 'gpt-4.1-mini',
    tier: 'standard',
    complexity: 12,
    httpStatus: 200,
    errorClass: '',
    latencyMs: 42,
    inputTokens: '120',
    outputTokens: '30',
    priced: true,
    costMicros: '100',
    priceListVersion: 'sha256:0123456789abcdef',
    routingPolicyVersion: 'sha256:fedcba9876543210',
    stream: false,
    startedAt: new Date(),
    consumed: true,
    commitWithinMs: 0,
    ...overrides,
  };
}

/** One gateway request as edge makes it: reserve, then record what happened. */
export async function cycle(
  client: LedgerClient,
  who: Subject,
  { estimate = '100', cost = '100' }: { estimate?: string; cost?: string } = {},
): Promise<{ allowed: boolean; accepted: boolean; requestId: string }> {
  const requestId = newRequestId();
  const decision = await client.checkQuota({ subject: who, requestId, estimatedCostMicros: estimate });
  const recorded = await client.record(
    recordOf(who, {
      requestId,
      reservationId: decision.reservationId,
      consumed: decision.allowed,
      costMicros: decision.allowed ? cost : '0',
      httpStatus: decision.allowed ? 200 : 402,
      errorClass: decision.allowed ? '' : 'quota',
    }),
  );
  return { allowed: decision.allowed, accepted: recorded.accepted, requestId };
}

/** Polls until the check returns a value, or fails after the bound. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Polls until the check reports done. There is no budget for the whole wait:
 * it fails only when the progress the check reports (rows written, records
 * sent) has not moved for stallMs, so a loaded machine makes it slower and a
 * stuck writer makes it fail.
 */
export async function untilDone(check: () => Promise<{ done: boolean; progress: number }>, what: string, stallMs = 60_000): Promise<void> {
  let last = Number.NaN;
  let movedAt = Date.now();
  for (;;) {
    const { done, progress } = await check();
    if (done) return;
    if (progress !== last) {
      last = progress;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > stallMs) {
      throw new Error(`${what}: no progress for ${stallMs} ms (stuck at ${progress})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits until a counter rebuild waits for the lock `admin` holds on
 * ledger.ledger_entries: the Record that needed it has then been received
 * and stays in flight until the lock is released.
 */
export async function untilRebuildWaitsForLock(admin: Pick<Client, 'query'>): Promise<void> {
  await untilDone(async () => {
    const { rows } = await admin.query<{ waiting: number }>("select count(*)::int as waiting from pg_locks where not granted and relation = 'ledger.ledger_entries'::regclass");
    return { done: (rows[0]?.waiting ?? 0) > 0, progress: 0 };
  }, 'the rebuild waiting for the lock');
}

/** The first instant of the next UTC month, as the test computes it. */
export function nextUtcMonth(at = new Date()): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

export function currentPeriodKey(at = new Date()): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}
