import { sql } from 'kysely';
import { Client } from 'pg';
import { openLedgerSuite, recordOf, scrapeMetric, subject, untilDone, type LedgerClient, type LedgerSuite } from './support/ledger';

/**
 * Postgres ends the ledger's connections again and again (pg_terminate_backend
 * of every backend of the test's database) while records flow: connections
 * idle, in a query, in the writer's transaction. The process lives, the
 * batches that failed are written again, none is set aside as refused, and
 * every accepted record is in Postgres exactly once.
 */
describe('ledger while Postgres ends its connections', () => {
  const CONCURRENCY = 10;
  /** Terminations must have failed this many of the writer's batches before they stop. */
  const FAILED_BATCHES = 3;
  let suite: LedgerSuite;
  let admin: Client;

  beforeAll(async () => {
    suite = await openLedgerSuite('pg_terminated');
    admin = new Client({ connectionString: suite.database.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await suite?.close();
  });

  const send = async (client: LedgerClient, who: ReturnType<typeof subject>, accepted: Set<string>, stop: () => boolean) => {
    const worker = async () => {
      while (!stop()) {
        const record = recordOf(who, { costMicros: '1' });
        const answer = await client.record(record).catch(() => undefined);
        if (answer?.accepted) accepted.add(record.requestId);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };

  it('lives, and writes every accepted record once', async () => {
    const { ledger, client } = await suite.start({ WRITER_BATCH_SIZE: '10', WRITER_LINGER_MS: '0' });
    const who = subject({ planTier: 'pro' });
    const accepted = new Set<string>();
    let terminating = true;
    const sending = send(client, who, accepted, () => !terminating);

    // Until enough terminations have hit the writer mid-batch (or the process died of them).
    let rounds = 0;
    for (;;) {
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
      rounds += 1;
      const failed = await scrapeMetric(ledger, 'ledger_writer_failed_batches_total');
      if (failed === undefined || failed >= FAILED_BATCHES) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    terminating = false;
    await sending;

    // The process is alive and takes records.
    const last = recordOf(who, { costMicros: '1' });
    await expect(client.record(last)).resolves.toMatchObject({ accepted: true });
    accepted.add(last.requestId);
    expect(rounds).toBeGreaterThan(0);

    await untilDone(async () => {
      const { rows } = await sql<{ written: string }>`
        select count(*) as written from ledger.traces where request_id = any(${[...accepted]}::text[])`.execute(suite.db.db);
      const written = Number(rows[0]?.written);
      return { done: written === accepted.size, progress: written };
    }, 'every accepted record in Postgres');

    const { rows } = await sql<{ traces: string; distinct_traces: string; entries: string; spent: string }>`
      select (select count(*) from ledger.traces where organization_id = ${who.organizationId}) as traces,
             (select count(distinct request_id) from ledger.traces where organization_id = ${who.organizationId}) as distinct_traces,
             (select count(*) from ledger.ledger_entries where organization_id = ${who.organizationId}) as entries,
             (select coalesce(sum(amount_micros), 0) from ledger.ledger_entries where organization_id = ${who.organizationId}) as spent`.execute(
      suite.db.db,
    );
    const [row] = rows;
    expect(Number(row?.distinct_traces)).toBe(Number(row?.traces));
    expect(Number(row?.entries)).toBe(Number(row?.traces));
    // A lost connection is never a reason to set a record aside.
    await expect(suite.db.db.selectFrom('dead_letters').select('request_id').execute()).resolves.toEqual([]);
    // What Redis counted is what Postgres holds.
    const { quota } = await client.getQuota({ subject: who });
    expect(quota?.spentMicros).toBe(row?.spent);

    // It never died: a clean stop drains and exits 0.
    await expect(ledger.stop()).resolves.toBe(0);
  });
});
