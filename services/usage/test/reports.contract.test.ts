import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '@gateway/ledger/db';
import { DomainError } from '@gateway/lib/errors';
import { connectDatabase, migrateToLatest } from '@gateway/lib/db';
import { createPromiseClient, type PromiseClient } from '@gateway/lib/grpc';
import { UsageGroupBy, UsageServiceService, type GetUsageRequest, type GetUsageResponse, type UsageFigures } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { createTestDatabase } from '../../../test/support/databases';
import { REPO_ROOT } from '../../../test/support/paths';
import { startService } from '../../../test/support/processes';
import type { HostCommand, HostReply, HostRequest } from './support/pglite-host';
import { insertTraces, newId, runAsReader, utcMidnight, type TraceSeed } from './support/traces';

type UsageClient = PromiseClient<typeof UsageServiceService>;

/**
 * GetUsage over traces written straight into ledger.traces, with known
 * values. The same cases run on Postgres with usage as its own process, and
 * on PGlite with usage served as `npm start` serves it.
 */
interface Backend {
  /** The default scan cap. */
  usage: UsageClient;
  /** SCAN_CAP = 3. */
  capped: UsageClient;
  /** Writes traces as the ledger's writer would. */
  insert(rows: TraceSeed[]): Promise<void>;
  /** One statement as the usage service's role, with only its grants. */
  asReader(statement: string): Promise<void>;
  close(): Promise<void>;
}

const CAP = 3;
const client = (address: string) => createPromiseClient(UsageServiceService, { serviceName: 'usage', address, deadlineMs: 30_000 });

async function onPostgres(): Promise<Backend> {
  const database = await createTestDatabase('usage_reports');
  const ledger = connectDatabase<LedgerDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, LEDGER_SCHEMA);
  await migrateToLatest(ledger.db, LEDGER_SCHEMA, ledgerMigrations);
  const entry = 'services/usage/src/main.ts';
  const [standard, capped] = await Promise.all([
    startService({ name: 'usage', entry, env: { DATABASE_URL: database.url } }),
    startService({ name: 'usage', entry, env: { DATABASE_URL: database.url, SCAN_CAP: String(CAP) } }),
  ]);
  const clients = { usage: client(standard.address), capped: client(capped.address) };
  return {
    ...clients,
    insert: (rows) => insertTraces(ledger.db, rows),
    asReader: (statement) => runAsReader(ledger.db, statement),
    close: async () => {
      clients.usage.close();
      clients.capped.close();
      await Promise.all([standard.stop(), capped.stop()]);
      await ledger.destroy();
      await database.drop();
    },
  };
}

/** PGlite cannot load inside jest's module sandbox: it runs in a child process that seeds on request. */
async function onPglite(): Promise<Backend> {
  const host = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'support', 'pglite-host.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', SCAN_CAP: String(CAP) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let output = '';
  host.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ports = await new Promise<{ port: number; capped_port: number }>((resolve, reject) => {
    host.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.includes('"msg":"listening"'));
      if (line) resolve(JSON.parse(line) as { port: number; capped_port: number });
    });
    host.once('exit', (code) => reject(new Error(`the PGlite host exited with ${code}:\n${output}`)));
  });
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  host.on('message', (reply: HostReply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error === undefined) waiter?.resolve();
    else waiter?.reject(new Error(reply.error));
  });
  let next = 0;
  const ask = (command: HostCommand) =>
    new Promise<void>((resolve, reject) => {
      next += 1;
      pending.set(next, { resolve, reject });
      host.send({ ...command, id: next } satisfies HostRequest);
    });
  const clients = { usage: client(`127.0.0.1:${ports.port}`), capped: client(`127.0.0.1:${ports.capped_port}`) };
  return {
    ...clients,
    insert: (rows) => ask({ kind: 'insert', rows }),
    asReader: (statement) => ask({ kind: 'as-reader', statement }),
    close: async () => {
      clients.usage.close();
      clients.capped.close();
      const exited = new Promise((resolve) => host.once('exit', resolve));
      host.disconnect();
      await exited;
    },
  };
}

const utcDay = (instant: Date) => instant.toISOString().slice(0, 10);
const at = (day: Date, hours: number, minutes = 0, seconds = 0, ms = 0) =>
  new Date(day.getTime() + ((hours * 60 + minutes) * 60 + seconds) * 1000 + ms);

/** Figures as the proto carries them, for exact comparison. */
function figures(requests: number, extra: Partial<UsageFigures> = {}): UsageFigures {
  return { requests: String(requests), errors: '0', failures: {}, latencyMs: undefined, costMicros: '0', unpricedRequests: '0', ...extra };
}
const EMPTY = figures(0);

describe.each([
  ['Postgres, usage as its own process', onPostgres],
  ['PGlite, usage in process (npm start)', onPglite],
])('usage reports on %s', (_name, start) => {
  let backend: Backend;

  beforeAll(async () => {
    backend = await start();
  }, 120_000);
  afterAll(() => backend?.close());

  const read = (organizationId: string, rangeDays: number, groupBy: UsageGroupBy, via: UsageClient = backend.usage) =>
    via.getUsage({ organizationId, rangeDays, groupBy });

  /**
   * Seeds a new organization relative to now and reads its report; seeds and
   * reads again, once, if a UTC midnight fell in between and moved the window.
   */
  async function seeded(
    seed: (organizationId: string, now: Date) => TraceSeed[],
    request: Omit<GetUsageRequest, 'organizationId'>,
    via?: UsageClient,
  ): Promise<{ organizationId: string; now: Date; report: GetUsageResponse }> {
    for (let attempt = 1; ; attempt += 1) {
      const organizationId = newId();
      const now = new Date();
      await backend.insert(seed(organizationId, now));
      const report = await read(organizationId, request.rangeDays, request.groupBy, via);
      if (utcDay(report.to ?? now) === utcDay(now) || attempt === 2) return { organizationId, now, report };
    }
  }

  it('adds up a hand-computed fixture exactly: counts, failures, nearest-rank percentiles, micro-dollars', async () => {
    // 24 requests yesterday. m-twenty: latencies 1..20 (shuffled), two unpriced provider
    // failures, one priced timeout, 17 at 55,555 and one at 1,234,567 micro-dollars.
    // m-one: one request, 42 ms, 1 micro-dollar. No model: three validation failures, 100/200/300 ms.
    const twenty = [7, 3, 15, 1, 20, 9, 12, 5, 18, 2, 11, 14, 6, 19, 4, 16, 8, 13, 10, 17];
    const { report } = await seeded(
      (organizationId, now) => {
        const noon = at(utcMidnight(now, 1), 12);
        const row = (index: number, seed: Omit<TraceSeed, 'organizationId' | 'startedAt'>): TraceSeed => ({ organizationId, startedAt: at(noon, 0, 0, index), ...seed });
        return [
          ...twenty.map((latencyMs, index) =>
            row(index, {
              servedModel: 'm-twenty',
              latencyMs,
              ...(index < 2 ? { errorClass: 'provider', costMicros: null } : {}),
              ...(index === 2 ? { errorClass: 'timeout', costMicros: 1_234_567n } : {}),
              ...(index > 2 ? { costMicros: 55_555n } : {}),
            }),
          ),
          row(20, { servedModel: 'm-one', latencyMs: 42, costMicros: 1n }),
          ...[100, 300, 200].map((latencyMs, index) => row(21 + index, { servedModel: null, latencyMs, errorClass: 'validation', costMicros: null })),
        ];
      },
      { rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_MODEL },
    );

    // Sorted totals: 1..20, 42, 100, 200, 300. Nearest rank: p50 = 12th, p95 = ceil(22.8) = 23rd, p99 = ceil(23.76) = 24th.
    expect(report.totals).toEqual(
      figures(24, {
        errors: '6',
        failures: { provider: '2', timeout: '1', validation: '3' },
        latencyMs: { p50: 12, p95: 200, p99: 300 },
        costMicros: String(17n * 55_555n + 1_234_567n + 1n),
        unpricedRequests: '5',
      }),
    );
    expect(report.groups).toEqual([
      // 1..20: p50 = 10th (10, not the interpolated 10.5), p95 = 19th, p99 = ceil(19.8) = 20th.
      {
        key: 'm-twenty',
        figures: figures(20, {
          errors: '3',
          failures: { provider: '2', timeout: '1' },
          latencyMs: { p50: 10, p95: 19, p99: 20 },
          costMicros: '2179002',
          unpricedRequests: '2',
        }),
      },
      // The requests no model served (rejected before routing): the null group.
      { figures: figures(3, { errors: '3', failures: { validation: '3' }, latencyMs: { p50: 200, p95: 300, p99: 300 }, unpricedRequests: '3' }) },
      // A group of one value: every percentile is that value.
      { key: 'm-one', figures: figures(1, { latencyMs: { p50: 42, p95: 42, p99: 42 }, costMicros: '1' }) },
    ]);
  });

  it('names the failures of a class this version does not know, beside the known ones', async () => {
    const { report } = await seeded(
      (organizationId, now) =>
        (['teapot', 'teapot', 'provider', null] as const).map((errorClass, index) => ({
          organizationId,
          startedAt: at(utcMidnight(now, 1), 10, index),
          latencyMs: 5,
          servedModel: index === 0 ? 'm-a' : 'm-b',
          errorClass,
        })),
      { rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_MODEL },
    );
    expect(report.totals).toMatchObject({ errors: '3', failures: { provider: '1', teapot: '2' } });
    expect(report.groups.map((group) => [group.key, group.figures?.failures])).toEqual([
      ['m-b', { provider: '1', teapot: '1' }],
      ['m-a', { teapot: '1' }],
    ]);
  });

  it('answers an empty window with zeros and null percentiles, every day listed', async () => {
    const organizationId = newId();
    const byDay = await read(organizationId, 7, UsageGroupBy.USAGE_GROUP_BY_DAY);
    expect(byDay.totals).toEqual(EMPTY);
    expect(byDay.groups).toHaveLength(7);
    for (const group of byDay.groups) expect(group.figures).toEqual(EMPTY);
    const byModel = await read(organizationId, 90, UsageGroupBy.USAGE_GROUP_BY_MODEL);
    expect({ totals: byModel.totals, groups: byModel.groups, truncated: byModel.truncated }).toEqual({ totals: EMPTY, groups: [], truncated: false });
  });

  it('groups by UTC day, split exactly at midnight UTC, with days without traffic as zeros', async () => {
    const { now, report } = await seeded(
      (organizationId, seededAt) => {
        const today = utcMidnight(seededAt);
        const windowStart = utcMidnight(seededAt, 6);
        const row = (startedAt: Date, latencyMs: number): TraceSeed => ({ organizationId, startedAt, latencyMs });
        return [
          row(new Date(windowStart.getTime() - 1), 1), // the last millisecond before the window: not counted
          row(windowStart, 2), // its first instant: counted
          row(at(utcMidnight(seededAt, 3), 12), 3),
          row(new Date(today.getTime() - 1), 4), // 23:59:59.999 yesterday
          row(new Date(today.getTime() - 1), 5),
          row(today, 6), // 00:00:00.000 today
        ];
      },
      { rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_DAY },
    );
    const days = Array.from({ length: 7 }, (_, index) => utcDay(utcMidnight(now, 6 - index)));
    expect(report.from).toEqual(utcMidnight(now, 6));
    expect(report.groups.map((group) => group.key)).toEqual(days);
    const one = (latency: number) => ({ p50: latency, p95: latency, p99: latency });
    expect(report.groups.map((group) => group.figures)).toEqual([
      figures(1, { latencyMs: one(2), costMicros: '1000' }),
      EMPTY,
      EMPTY,
      figures(1, { latencyMs: one(3), costMicros: '1000' }),
      EMPTY,
      figures(2, { latencyMs: { p50: 4, p95: 5, p99: 5 }, costMicros: '2000' }),
      figures(1, { latencyMs: one(6), costMicros: '1000' }),
    ]);
    expect(report.totals?.requests).toBe('5');
  });

  it('groups by key (null for legacy credentials) and by agent record (null for organization-level traffic), ids that no longer exist included', async () => {
    const [keyA, keyB, agent] = [newId(), newId(), newId()];
    const seed = (organizationId: string, now: Date): TraceSeed[] => {
      const row = (apiKeyId: string | null, agentId: string | null, index: number): TraceSeed => ({
        organizationId,
        startedAt: at(utcMidnight(now, 2), 9, index),
        latencyMs: 10 + index,
        apiKeyId,
        agentId,
      });
      return [row(keyA, null, 0), row(keyA, agent, 1), row(keyA, agent, 2), row(keyB, null, 3), row(null, agent, 4)];
    };
    const byKey = (await seeded(seed, { rangeDays: 14, groupBy: UsageGroupBy.USAGE_GROUP_BY_KEY })).report;
    // Most requests first; equal counts by key, the null group last.
    expect(byKey.groups.map((group) => [group.key ?? null, group.figures?.requests])).toEqual([
      [keyA, '3'],
      [keyB, '1'],
      [null, '1'],
    ]);
    const byAgent = (await seeded(seed, { rangeDays: 14, groupBy: UsageGroupBy.USAGE_GROUP_BY_AGENT })).report;
    expect(byAgent.groups.map((group) => [group.key ?? null, group.figures?.requests])).toEqual([
      [agent, '3'],
      [null, '2'],
    ]);
  });

  it('never shows another organization’s requests, whatever the range and grouping', async () => {
    const [mine, theirs] = [newId(), newId()];
    const [theirKey, theirAgent] = [newId(), newId()];
    const now = new Date();
    const rows: TraceSeed[] = [];
    // From yesterday back: a row at 01:00 today would lie in the future for a run in the first hour of a UTC day.
    for (let day = 1; day < 90; day += 9) {
      rows.push({ organizationId: mine, startedAt: at(utcMidnight(now, day), 1), latencyMs: 5, servedModel: 'shared-model' });
      for (let copy = 0; copy < 3; copy += 1) {
        rows.push({ organizationId: theirs, startedAt: at(utcMidnight(now, day), 1, copy), latencyMs: 9000, servedModel: 'their-model', apiKeyId: theirKey, agentId: theirAgent, errorClass: 'provider' });
        rows.push({ organizationId: theirs, startedAt: at(utcMidnight(now, day), 1, copy), latencyMs: 9000, servedModel: 'shared-model' });
      }
    }
    await backend.insert(rows);
    const theirKeys = new Set(['their-model', theirKey, theirAgent]);
    for (const rangeDays of [7, 14, 30, 90]) {
      const expected = rows.filter((row) => row.organizationId === mine && row.startedAt >= utcMidnight(now, rangeDays - 1)).length;
      for (const groupBy of [UsageGroupBy.USAGE_GROUP_BY_DAY, UsageGroupBy.USAGE_GROUP_BY_MODEL, UsageGroupBy.USAGE_GROUP_BY_KEY, UsageGroupBy.USAGE_GROUP_BY_AGENT]) {
        for (const via of [backend.usage, backend.capped]) {
          const report = await read(mine, rangeDays, groupBy, via);
          const counted = via === backend.capped ? Math.min(expected, CAP) : expected;
          expect({ rangeDays, groupBy, requests: report.totals?.requests, errors: report.totals?.errors, p99: report.totals?.latencyMs?.p99 }).toEqual({
            rangeDays,
            groupBy,
            requests: String(counted),
            errors: '0',
            p99: 5,
          });
          expect(report.groups.filter((group) => group.key !== undefined && theirKeys.has(group.key))).toEqual([]);
        }
      }
    }
  });

  it('truncates past the scan cap: the newest requests are counted, and the report says so', async () => {
    const { report } = await seeded(
      (organizationId, now) =>
        [10, 20, 30, 40, 50].map((latencyMs, index) => ({
          organizationId,
          startedAt: at(utcMidnight(now, 1), 8 + index),
          latencyMs,
          costMicros: BigInt(latencyMs),
        })),
      { rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_MODEL },
      backend.capped,
    );
    expect(report.truncated).toBe(true);
    expect(report.totals).toEqual(figures(3, { latencyMs: { p50: 40, p95: 50, p99: 50 }, costMicros: '120' }));

    // Within one millisecond: the cut is kept to the microsecond, so exactly the newest three count.
    const sameMillisecond = await seeded(
      (organizationId, now) =>
        [10, 20, 30, 40, 50].map((latencyMs, index) => ({ organizationId, startedAt: at(utcMidnight(now, 1), 8), microseconds: 100 * (index + 1), latencyMs })),
      { rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_DAY },
      backend.capped,
    );
    expect({ truncated: sameMillisecond.report.truncated, totals: sameMillisecond.report.totals }).toEqual({
      truncated: true,
      totals: figures(3, { latencyMs: { p50: 40, p95: 50, p99: 50 }, costMicros: '3000' }),
    });

    const atCap = await seeded(
      (organizationId, now) => [1, 2, 3].map((latencyMs) => ({ organizationId, startedAt: at(utcMidnight(now, 1), latencyMs), latencyMs })),
      { rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_DAY },
      backend.capped,
    );
    expect({ truncated: atCap.report.truncated, requests: atCap.report.totals?.requests }).toEqual({ truncated: false, requests: '3' });
  });

  it('applies the defaults, 30 days by day, and says so', async () => {
    const report = await read(newId(), 0, UsageGroupBy.USAGE_GROUP_BY_UNSPECIFIED);
    expect({ rangeDays: report.rangeDays, groupBy: report.groupBy, groups: report.groups.length }).toEqual({
      rangeDays: 30,
      groupBy: UsageGroupBy.USAGE_GROUP_BY_DAY,
      groups: 30,
    });
    expect(report.to!.getTime() - report.from!.getTime()).toBeGreaterThan(29 * 86_400_000);
    expect(report.to!.getTime() - report.from!.getTime()).toBeLessThanOrEqual(30 * 86_400_000);
  });

  it.each([
    [{ organizationId: 'not-an-id' }, 'organization_id: must be a UUID'],
    [{ rangeDays: 5 }, 'range_days: must be one of 7, 14, 30, 90, or 0 for 30'],
    [{ rangeDays: 365 }, 'range_days: must be one of 7, 14, 30, 90, or 0 for 30'],
    [{ groupBy: 9 as UsageGroupBy }, 'group_by: must be one of day, model, key, agent'],
  ])('rejects %j as validation, naming the field and what it allows', async (change, message) => {
    const request: GetUsageRequest = { organizationId: newId(), rangeDays: 7, groupBy: UsageGroupBy.USAGE_GROUP_BY_DAY, ...change };
    const error = await backend.usage.getUsage(request).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect({ kind: (error as DomainError).kind, message: (error as DomainError).message }).toEqual({ kind: 'validation', message: expect.stringContaining(message) });
  });

  it('reads as a role that can read ledger.traces and nothing else', async () => {
    await expect(backend.asReader('select count(*) from ledger.traces')).resolves.toBeUndefined();
    for (const statement of [
      "update ledger.traces set latency_ms = 0 where organization_id = '00000000-0000-4000-8000-000000000000'",
      "delete from ledger.traces where organization_id = '00000000-0000-4000-8000-000000000000'",
      'select count(*) from ledger.ledger_entries',
      'select count(*) from ledger.credits',
      'create table ledger.scratch (id int)',
    ]) {
      await expect(backend.asReader(statement)).rejects.toThrow(/permission denied/);
    }
  });
});
