import { Client } from 'pg';
import type { Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { LedgerClient } from './support/ledger';
import { openLedgerSuite, recordOf, scrapeMetric, subject, untilDone, untilRebuildWaitsForLock, type LedgerSuite } from './support/ledger';

/**
 * `x-service-metered: false` must never be said of a request that was
 * charged. A Record held up past its commit deadline (here: its period's
 * counters must be loaded from Postgres, and Postgres is blocked by a lock)
 * must answer not accepted and not commit the record when Postgres frees up.
 * The deadline is the caller's commit window (`commit_within_ms`) when it
 * sends one, else half of what the call's own deadline left.
 */
describe('a Record past its commit deadline', () => {
  let suite: LedgerSuite;
  let admin: Client;

  beforeAll(async () => {
    suite = await openLedgerSuite('record_deadline');
    admin = new Client({ connectionString: suite.database.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await suite?.close();
  });

  /** Ids of the organization's records in Postgres. */
  const writtenIds = async (organizationId: string) =>
    (await suite.db.db.selectFrom('traces').select('request_id').where('organization_id', '=', organizationId).execute()).map(({ request_id }) => request_id);

  /** A record in time after the late one, once written: the stream is drained in order, so by then the late one would be too. */
  async function onlyTheRecordInTime(client: LedgerClient, who: Subject): Promise<void> {
    const inTime = recordOf(who, { costMicros: '100' });
    await expect(client.record(inTime)).resolves.toMatchObject({ accepted: true });
    await untilDone(async () => {
      const ids = await writtenIds(who.organizationId);
      return { done: ids.includes(inTime.requestId), progress: ids.length };
    }, 'the record in time in Postgres');
    expect(await writtenIds(who.organizationId)).toEqual([inTime.requestId]);
    // Nor was it counted: the allowance shows only the record in time.
    const { quota } = await client.getQuota({ subject: who });
    expect(quota?.spentMicros).toBe('100');
  }

  it('is never committed later, when the caller stopped waiting at its deadline', async () => {
    const { ledger, client } = await suite.start();
    // A new organization: its counters are rebuilt from ledger_entries first, which the lock holds up.
    const who = subject({ planTier: 'pro' });
    await admin.query('begin');
    await admin.query('lock table ledger.ledger_entries in access exclusive mode');

    const late = recordOf(who, { costMicros: '100' });
    await expect(client.record(late, { deadlineMs: 300 })).rejects.toMatchObject({ kind: 'timeout' });
    await admin.query('commit');
    // The call is answered (too late for its caller) once the rebuild gets through.
    await untilDone(async () => {
      const answered = (await scrapeMetric(ledger, 'ledger_records_total')) ?? 0;
      return { done: answered >= 1, progress: answered };
    }, 'the late call answered');
    await expect(scrapeMetric(ledger, 'ledger_records_total', { accepted: 'false', refused: 'late' })).resolves.toBe(1);
    await onlyTheRecordInTime(client, who);
  });

  it('answers not accepted, and commits nothing, when the caller waits past its commit window', async () => {
    const COMMIT_WITHIN_MS = 200;
    const { client } = await suite.start();
    const who = subject({ planTier: 'pro' });
    await admin.query('begin');
    await admin.query('lock table ledger.ledger_entries in access exclusive mode');
    let answer: Promise<unknown>;
    try {
      // A deadline far beyond the window: only the window can refuse it.
      answer = client.record(recordOf(who, { costMicros: '100', commitWithinMs: COMMIT_WITHIN_MS }), { deadlineMs: 120_000 });
      // Once the rebuild waits for the lock, the call has been received; the window then passes while it waits.
      await untilRebuildWaitsForLock(admin);
      await new Promise((resolve) => setTimeout(resolve, COMMIT_WITHIN_MS));
    } finally {
      await admin.query('commit');
    }
    await expect(answer).resolves.toMatchObject({ accepted: false });
    await onlyTheRecordInTime(client, who);
  });
});
