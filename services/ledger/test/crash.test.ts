import { sql } from 'kysely';
import type { Database } from '@gateway/lib/db';
import type { Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import type { ServiceProcess } from '../../../test/support/processes';
import type { LedgerDatabase } from '../src/db';
import {
  clearRedisPrefix,
  eventually,
  ledgerClient,
  ledgerDatabase,
  recordOf,
  startLedger,
  subject,
  uniquePrefix,
  writeTestCatalog,
  type LedgerClient,
  type TestCatalog,
} from './support/ledger';

/**
 * kill -9 of a ledger process while batches are flowing: a new process
 * claims what the dead one left pending, and every accepted record ends up
 * in Postgres exactly once.
 */
describe('ledger process killed mid-batch', () => {
  const prefix = uniquePrefix('crash');
  const TOTAL = 2000;
  const CONCURRENCY = 50;
  let database: TestDatabase;
  let catalog: TestCatalog;
  let db: Database<LedgerDatabase>;
  const processes: ServiceProcess[] = [];
  const clients: LedgerClient[] = [];

  const start = async () => {
    const ledger = await startLedger({
      databaseUrl: database.url,
      redisUrl: testRedisUrl(),
      prefix,
      catalogPath: catalog.path,
      // Small batches keep the writer busy while records arrive; a short idle time lets the next process claim soon.
      env: { WRITER_BATCH_SIZE: '5', WRITER_CLAIM_IDLE_MS: '1000' },
    });
    processes.push(ledger);
    const client = ledgerClient(ledger.address, 3000);
    clients.push(client);
    return { ledger, client };
  };

  beforeAll(async () => {
    database = await createTestDatabase('ledger_crash');
    catalog = writeTestCatalog();
    db = ledgerDatabase(database.url);
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(processes.map((ledger) => ledger.stop()));
    await db?.destroy();
    await clearRedisPrefix(testRedisUrl(), prefix);
    catalog?.remove();
    await database?.drop();
  });

  const writtenCount = async (organizationId: string) => {
    const row = await db.db
      .selectFrom('traces')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  };

  /** Sends records from a shared list with a fixed concurrency until it is empty or sending should stop. */
  const send = async (client: LedgerClient, who: Subject, pending: string[], accepted: Set<string>, stop: () => boolean) => {
    const worker = async () => {
      while (!stop()) {
        const requestId = pending.shift();
        if (requestId === undefined) return;
        try {
          const response = await client.record(recordOf(who, { requestId, costMicros: '1' }));
          if (response.accepted) accepted.add(requestId);
        } catch {
          // The process died under the call: the record may or may not be in the stream; it is not "accepted".
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };

  it('loses no accepted record and writes none twice', async () => {
    const who = subject({ planTier: 'pro' });
    const requestIds = Array.from({ length: TOTAL }, () => recordOf(who).requestId);
    const pending = [...requestIds];
    const accepted = new Set<string>();

    const first = await start();
    let killed = false;
    const sending = send(first.client, who, pending, accepted, () => killed);
    // Kill once some batches are committed and more are still coming.
    const writtenAtKill = await eventually(async () => {
      const written = await writtenCount(who.organizationId);
      return written >= 100 ? written : undefined;
    }, 30_000, 'the first committed batches');
    await first.ledger.kill();
    killed = true;
    const acceptedAtKill = accepted.size;
    await sending;
    expect(acceptedAtKill).toBeGreaterThan(writtenAtKill);

    const second = await start();
    await send(second.client, who, pending, accepted, () => false);
    expect(pending).toHaveLength(0);

    await eventually(async () => {
      const { rows } = await sql<{ request_id: string }>`
        select request_id from ledger.traces where request_id = any(${[...accepted]}::text[])`.execute(db.db);
      return rows.length === accepted.size ? true : undefined;
    }, 30_000, 'every accepted record in Postgres');

    const counts = await sql<{ traces: string; distinct_traces: string; entries: string; spent: string }>`
      select (select count(*) from ledger.traces where organization_id = ${who.organizationId}) as traces,
             (select count(distinct request_id) from ledger.traces where organization_id = ${who.organizationId}) as distinct_traces,
             (select count(*) from ledger.ledger_entries where organization_id = ${who.organizationId}) as entries,
             (select coalesce(sum(amount_micros), 0) from ledger.ledger_entries where organization_id = ${who.organizationId}) as spent`.execute(db.db);
    const [row] = counts.rows;
    const traces = Number(row?.traces);
    // Calls cut off by the kill may have landed without their answer: at most the calls that were in flight.
    expect(traces).toBeGreaterThanOrEqual(accepted.size);
    expect(traces).toBeLessThanOrEqual(accepted.size + CONCURRENCY);
    expect(Number(row?.distinct_traces)).toBe(traces);
    expect(Number(row?.entries)).toBe(traces);

    // Settlement and queueing are one step: the counter equals what Postgres holds, record for record.
    await eventually(async () => ((await writtenCount(who.organizationId)) === traces ? true : undefined));
    const { quota } = await second.client.getQuota({ subject: who });
    expect(quota?.spentMicros).toBe(row?.spent);
    expect(Number(row?.spent)).toBe(traces);

    // A clean stop drains: exit code 0.
    await expect(second.ledger.stop()).resolves.toBe(0);
  }, 60_000);
});
