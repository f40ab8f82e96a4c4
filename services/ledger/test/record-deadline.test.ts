import { Client } from 'pg';
import { openLedgerSuite, recordOf, scrapeMetric, subject, untilDone, type LedgerSuite } from './support/ledger';

/**
 * `x-service-metered: false` must never be said of a request that was
 * charged. A Record held up past its caller's deadline (here: its period's
 * counters must be loaded from Postgres, and Postgres is blocked by a lock)
 * answers nothing in time, so the caller says "not metered"; when Postgres
 * frees up, the ledger must not commit that record after all.
 */
describe('a Record past its deadline', () => {
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

  it('is never committed later', async () => {
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

    // A record in time after it is written; the stream is drained in order, so by then the late one would be too.
    const inTime = recordOf(who, { costMicros: '100' });
    await expect(client.record(inTime)).resolves.toMatchObject({ accepted: true });
    const writtenIds = async () =>
      (await suite.db.db.selectFrom('traces').select('request_id').where('organization_id', '=', who.organizationId).execute()).map(
        ({ request_id }) => request_id,
      );
    await untilDone(async () => {
      const ids = await writtenIds();
      return { done: ids.includes(inTime.requestId), progress: ids.length };
    }, 'the record in time in Postgres');

    expect(await writtenIds()).toEqual([inTime.requestId]);
    // Nor was it counted: the allowance shows only the record in time.
    const { quota } = await client.getQuota({ subject: who });
    expect(quota?.spentMicros).toBe('100');
  });
});
