import { sql } from 'kysely';
import { Redis } from 'ioredis';
import type { Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { testRedisUrl } from '../../../test/support/databases';
import { ledgerKeys } from '../src/redis/keys';
import { openLedgerSuite, recordOf, subject, untilDone, type LedgerClient, type LedgerSuite } from './support/ledger';

/**
 * kill -9 of a ledger process while batches are flowing: a new process
 * claims what the dead one left pending, and every accepted record ends up
 * in Postgres exactly once. Every wait is on progress (rows written, records
 * sent, the claim in the log), never on a budget of time: on a loaded machine
 * the writer is slower, not wrong.
 */
describe('ledger process killed mid-batch', () => {
  const TOTAL = 2000;
  const CONCURRENCY = 50;
  /** Accepted records not yet in Postgres when the process is killed. */
  const BACKLOG_AT_KILL = 10;
  let suite: LedgerSuite;
  let db: LedgerSuite['db'];
  let redis: Redis;

  // Batches this small keep the writer behind the 50 senders, so that a backlog of accepted records to write
  // (which the kill waits for) builds up soon; a loaded machine only makes the waits below longer.
  // A short idle time lets the next process claim soon.
  const start = () => suite.start({ WRITER_BATCH_SIZE: '5', WRITER_CLAIM_IDLE_MS: '1000' }, 3000);

  beforeAll(async () => {
    suite = await openLedgerSuite('crash');
    db = suite.db;
    redis = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    redis?.disconnect();
    await suite?.close();
  });

  /** Entries delivered to a writer and not yet acknowledged, over every consumer of the group. */
  const pendingCount = async () => {
    const [count] = (await redis.xpending(ledgerKeys(suite.prefix).stream, 'ledger-writers')) as [number, ...unknown[]];
    return count;
  };

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
    // Kill once some batches are committed and accepted records are waiting to be written: the
    // writer can catch up with the senders for a moment (a busy machine slows the calls more than
    // the writer), so the backlog is waited for rather than assumed.
    await untilDone(async () => {
      const written = await writtenCount(who.organizationId);
      return { done: written >= 100 && accepted.size - written >= BACKLOG_AT_KILL, progress: written + accepted.size };
    }, 'the first committed batches, and accepted records still to write');
    await first.ledger.kill();
    killed = true;
    // What the dead writer had read and not acknowledged: only a claim can bring it to Postgres.
    const leftPending = await pendingCount();
    await sending;

    const second = await start();
    await send(second.client, who, pending, accepted, () => false);
    expect(pending).toHaveLength(0);

    await untilDone(async () => {
      const { rows } = await sql<{ written: string }>`
        select count(*) as written from ledger.traces where request_id = any(${[...accepted]}::text[])`.execute(db.db);
      const written = Number(rows[0]?.written);
      return { done: written === accepted.size, progress: written };
    }, 'every accepted record in Postgres');

    // Records cut off by the kill, accepted or not, are written too before anything is counted.
    await untilDone(async () => {
      const [written, queued] = await Promise.all([writtenCount(who.organizationId), redis.xlen(ledgerKeys(suite.prefix).stream)]);
      return { done: queued === 0, progress: written - queued };
    }, 'nothing left in the stream');
    // An empty stream means the dead writer's pending records were acknowledged: only a claim could have taken them.
    if (leftPending > 0) expect(second.ledger.logs()).toContain('claimed pending records');
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
    const { quota } = await second.client.getQuota({ subject: who });
    expect(quota?.spentMicros).toBe(row?.spent);
    expect(Number(row?.spent)).toBe(traces);

    // A clean stop drains: exit code 0.
    await expect(second.ledger.stop()).resolves.toBe(0);
  });
});
