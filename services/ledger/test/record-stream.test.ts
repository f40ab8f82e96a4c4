import { Client } from 'pg';
import { openLedgerSuite, recordOf, subject, untilRebuildWaitsForLock, type LedgerSuite } from './support/ledger';

/**
 * edge records over `StreamRecords`, many records on one stream. A ledger
 * process that dies with records in flight on it must fail them at once, as
 * `unavailable` (edge then says `x-service-metered: false`), as a unary call
 * would: not leave them waiting for their deadline.
 */
describe('records in flight on a stream when the ledger process dies', () => {
  let suite: LedgerSuite;
  let admin: Client;

  beforeAll(async () => {
    suite = await openLedgerSuite('record_stream');
    admin = new Client({ connectionString: suite.database.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await suite?.close();
  });

  it('fail as unavailable at once, long before their deadline', async () => {
    const { ledger, client } = await suite.start();
    const who = subject({ planTier: 'pro' });
    // The period's counters are rebuilt from ledger_entries first, which the lock holds up: the records stay in flight.
    await admin.query('begin');
    await admin.query('lock table ledger.ledger_entries in access exclusive mode');
    try {
      const inFlight = Array.from({ length: 3 }, () =>
        client.streamRecords(recordOf(who, { costMicros: '100' }), { deadlineMs: 600_000 }).catch((error: unknown) => error),
      );
      await untilRebuildWaitsForLock(admin);
      await ledger.kill();
      for (const outcome of await Promise.all(inFlight)) {
        expect(outcome).toMatchObject({ kind: 'unavailable', message: 'The ledger service is unavailable.' });
      }
    } finally {
      await admin.query('rollback');
    }
  });
});
