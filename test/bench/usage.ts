/**
 * `npm run bench:usage`: usage reports over gRPC from a real usage process on
 * a real Postgres. Seeds one organization's traces evenly over the last 90
 * days, plus other organizations' traffic, into a database of its own; times
 * every range x grouping (medians of several runs); then grows the
 * organization's traces to 10 million and times the same again, where the
 * scan cap answers truncated. Drops the database at the end. Prints tables;
 * asserts no time.
 *
 * Options: --runs N (timed runs per range and grouping, default 5),
 * --rows N (the organization's traces, default 1,000,000), --noise N (other
 * organizations' traces, default 4,000,000), --large N (the organization's
 * traces in the second phase, default 10,000,000; 0 skips it), --explain
 * (print the query plans of the 90-day report by day in each phase).
 */
import { parseArgs } from 'node:util';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '@gateway/ledger/db';
import { connectDatabase, migrateToLatest } from '@gateway/lib/db';
import { createPromiseClient } from '@gateway/lib/grpc';
import { UsageGroupBy, UsageServiceService } from '@gateway/proto/gen/gateway/usage/v1/usage';
import { readTraces, type TracesDatabase } from '../../services/usage/src/db/traces';
import { capCutQuery, figureQuery } from '../../services/usage/src/report/query';
import { usageWindow } from '../../services/usage/src/report/window';
import { createTestDatabase } from '../support/databases';
import { startService } from '../support/processes';
import { prepareBenchEnvironment } from './support/environment';
import { machineLine, median, ms } from './support/stats';
import { seedTraces } from './support/traces';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, rows: { type: 'string' }, noise: { type: 'string' }, large: { type: 'string' }, explain: { type: 'boolean' } },
});
const runs = z.coerce.number().int().min(1).default(5).parse(values.runs);
const rows = z.coerce.number().int().min(1000).default(1_000_000).parse(values.rows);
const noise = z.coerce.number().int().min(0).default(4_000_000).parse(values.noise);
const large = z.coerce.number().int().min(0).default(10_000_000).parse(values.large);

/** The usage service's default, which the process runs with. */
const SCAN_CAP = 1_000_000;
const WORK_MEM_MB = 128;
const ORGANIZATION = '0b5e0000-0000-4000-8000-000000000001';
const OTHER_ORGANIZATIONS = Array.from({ length: 20 }, (_, index) => `0b5e0000-0000-4000-8000-1000000000${String(index).padStart(2, '0')}`);
const SEED_CHUNK = 1_000_000;
const DAY_MS = 86_400_000;

const RANGES = [7, 14, 30, 90] as const;
const GROUPINGS = [
  ['day', UsageGroupBy.USAGE_GROUP_BY_DAY],
  ['model', UsageGroupBy.USAGE_GROUP_BY_MODEL],
  ['key', UsageGroupBy.USAGE_GROUP_BY_KEY],
  ['agent', UsageGroupBy.USAGE_GROUP_BY_AGENT],
] as const;

/**
 * Seeds in chunks of about a million, oldest first, each covering its share
 * of the period (traces arrive in time order); says how far it got and
 * returns the seconds it took.
 */
async function seed(db: Kysely<LedgerDatabase>, what: string, label: string, organizations: string[], count: number, from: Date, to: Date): Promise<number> {
  const started = performance.now();
  const chunks = Math.ceil(count / SEED_CHUNK);
  const instant = (fraction: number) => new Date(from.getTime() + (to.getTime() - from.getTime()) * fraction);
  for (let done = 0, chunk = 0; chunk < chunks; chunk += 1) {
    const size = Math.round((count * (chunk + 1)) / chunks) - done;
    await seedTraces(db, `${label}-${chunk}`, organizations, size, instant(chunk / chunks), instant((chunk + 1) / chunks));
    done += size;
    process.stdout.write(`\r  ${what}: ${done.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  process.stdout.write('\n');
  // What autovacuum does for an insert-only table (the migration asks it to every 100,000 rows): statistics and the visibility map.
  await sql`vacuum (analyze) ledger.traces`.execute(db);
  return (performance.now() - started) / 1000;
}

interface Timed {
  range: string;
  group_by: string;
  counted: string;
  truncated: boolean;
  'median ms': string;
  'min ms': string;
  'max ms': string;
}

async function timeReports(address: string): Promise<Timed[]> {
  const usage = createPromiseClient(UsageServiceService, { serviceName: 'usage', address, deadlineMs: 120_000 });
  try {
    const combinations = RANGES.flatMap((rangeDays) => GROUPINGS.map(([name, groupBy]) => ({ rangeDays, name, groupBy, timings: [] as number[] })));
    const answers = new Map<string, { counted: string; truncated: boolean }>();
    // One untimed round first (caches, plans), then the timed rounds, interleaved so a noisy moment spreads over all.
    for (let round = 0; round <= runs; round += 1) {
      for (const combination of combinations) {
        const started = performance.now();
        const report = await usage.getUsage({ organizationId: ORGANIZATION, rangeDays: combination.rangeDays, groupBy: combination.groupBy });
        if (round > 0) combination.timings.push(performance.now() - started);
        answers.set(`${combination.rangeDays}${combination.name}`, { counted: report.totals?.requests ?? '?', truncated: report.truncated });
      }
    }
    return combinations.map(({ rangeDays, name, timings }) => {
      const answer = answers.get(`${rangeDays}${name}`);
      return {
        range: `${rangeDays}d`,
        group_by: name,
        counted: Number(answer?.counted).toLocaleString('en-US'),
        truncated: answer?.truncated ?? false,
        'median ms': ms(median(timings)),
        'min ms': ms(Math.min(...timings)),
        'max ms': ms(Math.max(...timings)),
      };
    });
  } finally {
    usage.close();
  }
}

/** The plans of the statements of a 90-day report by day, as the usage service runs them. */
async function explain(db: Kysely<TracesDatabase>): Promise<void> {
  const { from, to } = usageWindow(90, new Date());
  const window = { organizationId: ORGANIZATION, from, to, after: undefined };
  const limits = { timeoutMs: 120_000, workMemMb: WORK_MEM_MB };
  const plan = async (title: string, query: CompiledQuery) => {
    const result = await readTraces(db, limits, (trx) =>
      trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers) ${query.sql}`, [...query.parameters])),
    );
    console.log(`\n${title}\n${result.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
  };
  await plan('1. where the scan cap cuts the window', capCutQuery(db, window, SCAN_CAP).compile());
  const cut = (await readTraces(db, limits, (trx) => capCutQuery(trx, window, SCAN_CAP).executeTakeFirst()))?.cut;
  const scope = { ...window, after: cut };
  await plan('2. figures per day and in total, failures by class included', figureQuery(db, scope, 'day').compile());
}

async function tableSizes(db: Kysely<LedgerDatabase>): Promise<string> {
  const { rows: sizes } = await sql<{ rows: string; table: string; index: string }>`
    select (select count(*) from ledger.traces)::text as rows,
      pg_size_pretty(pg_relation_size('ledger.traces')) as table,
      pg_size_pretty(pg_relation_size('ledger.traces_usage_idx')) as index`.execute(db);
  const [size] = sizes;
  return `ledger.traces: ${Number(size?.rows).toLocaleString('en-US')} rows, table ${size?.table}, traces_usage_idx ${size?.index}`;
}

async function measure(phase: string, url: string, ledger: Kysely<LedgerDatabase>, reader: Kysely<TracesDatabase>): Promise<void> {
  const usage = await startService({ name: 'usage', entry: 'services/usage/src/main.ts', env: { DATABASE_URL: url, SCAN_CAP: String(SCAN_CAP) } });
  try {
    const timed = await timeReports(usage.address);
    console.log(`\n${phase}. ${await tableSizes(ledger)}. SCAN_CAP ${SCAN_CAP.toLocaleString('en-US')}; ${runs} timed runs each, over gRPC.`);
    console.table(timed);
    if (values.explain) await explain(reader);
  } finally {
    await usage.stop();
  }
}

async function main(): Promise<void> {
  const infra = await prepareBenchEnvironment('usage');
  const database = await createTestDatabase('bench_usage');
  const ledger = connectDatabase<LedgerDatabase>({ kind: 'postgres', url: database.url, poolSize: 2 }, LEDGER_SCHEMA);
  const reader = connectDatabase<TracesDatabase>({ kind: 'postgres', url: database.url, poolSize: 1 }, LEDGER_SCHEMA);
  try {
    console.log(`Usage reports: one usage process on Postgres (${infra.databaseUrl.replace(/\/\/[^@]*@/, '//')}), database ${new URL(database.url).pathname.slice(1)}.`);
    console.log(machineLine());
    await migrateToLatest(ledger.db, LEDGER_SCHEMA, ledgerMigrations);
    const to = new Date();
    const from = new Date(to.getTime() - 90 * DAY_MS);
    const seeded = [
      await seed(ledger.db, 'the organization', 'org', [ORGANIZATION], rows, from, to),
      await seed(ledger.db, `${OTHER_ORGANIZATIONS.length} other organizations`, 'noise', OTHER_ORGANIZATIONS, noise, from, to),
    ];
    console.log(`Seeded ${rows.toLocaleString('en-US')} + ${noise.toLocaleString('en-US')} traces over 90 days in ${seeded.map((seconds) => seconds.toFixed(0)).join(' + ')} s (vacuum analyze included).`);
    await measure(`Phase 1: ${rows.toLocaleString('en-US')} traces of the organization`, database.url, ledger.db, reader.db);

    if (large > rows) {
      const grown = await seed(ledger.db, 'growing the organization', 'large', [ORGANIZATION], large - rows, from, to);
      console.log(`Added ${(large - rows).toLocaleString('en-US')} traces in ${grown.toFixed(0)} s.`);
      await measure(`Phase 2: ${large.toLocaleString('en-US')} traces of the organization`, database.url, ledger.db, reader.db);
    }
  } finally {
    await Promise.all([ledger.destroy(), reader.destroy()]);
    await database.drop();
    await infra.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
