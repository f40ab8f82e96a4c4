import { Redis } from 'ioredis';
import { parseInput } from '@gateway/lib/validation';
import { testRedisUrl } from '../../../test/support/databases';
import { periodOf } from '../src/quota/period';
import { buildPayload } from '../src/recording/build';
import { ledgerKeys } from '../src/redis/keys';
import { recordSchema } from '../src/rpc/schemas';
import { openLedgerSuite, recordOf, scrapeMetric, subject, untilDone, type LedgerSuite } from './support/ledger';

/**
 * A record Postgres refuses (here a NUL byte in a text column, which Postgres
 * text cannot hold) sits in the stream among valid ones, in the same batch.
 * Every other record is written; the refused one is set aside in
 * `dead_letters` with its payload, error and request id, logged once and
 * counted, and the writer goes on writing.
 */
describe('a record Postgres refuses', () => {
  let suite: LedgerSuite;
  let redis: Redis;

  beforeAll(async () => {
    suite = await openLedgerSuite('dead_letters');
    redis = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    redis?.disconnect();
    await suite?.close();
  });

  const queuedPayload = (who: ReturnType<typeof subject>, requestedModel: string) => {
    const record = parseInput(recordSchema, recordOf(who, { requestedModel }));
    return { requestId: record.requestId, json: JSON.stringify(buildPayload(record, 'spend', periodOf(new Date()), new Date())) };
  };

  const tracesOf = async (organizationId: string) =>
    (await suite.db.db.selectFrom('traces').select('request_id').where('organization_id', '=', organizationId).execute()).map(({ request_id }) => request_id);

  it('is set aside, and holds back none of the others', async () => {
    const who = subject({ planTier: 'pro' });
    const before = Array.from({ length: 20 }, () => queuedPayload(who, 'auto'));
    const refused = queuedPayload(who, 'auto\u0000');
    const after = Array.from({ length: 20 }, () => queuedPayload(who, 'auto'));
    // Straight into the stream, before any writer runs, so that all of them meet in one batch.
    const stream = ledgerKeys(suite.prefix).stream;
    for (const { json } of [...before, refused, ...after]) await redis.xadd(stream, '*', 'record', json, 'credits_used', '0');

    const { ledger, client } = await suite.start();
    const queued = [...before, ...after].map(({ requestId }) => requestId);
    await untilDone(async () => {
      const written = await tracesOf(who.organizationId);
      return { done: written.length === queued.length, progress: written.length };
    }, 'the valid records of the batch in Postgres');
    expect((await tracesOf(who.organizationId)).sort()).toEqual([...queued].sort());

    const letters = await suite.db.db.selectFrom('dead_letters').selectAll().execute();
    expect(letters).toHaveLength(1);
    // The batch reaches Postgres as JSON, whose cast to jsonb refuses the NUL (write-batch.ts).
    expect(letters[0]).toMatchObject({ request_id: refused.requestId, payload: refused.json, credits_used: 0, error_code: '22P05' });
    expect(letters[0]?.error).toMatch(/unsupported Unicode escape sequence/);

    // The writer goes on: a record taken afterwards is written too.
    const later = recordOf(who);
    await expect(client.record(later)).resolves.toMatchObject({ accepted: true });
    await untilDone(async () => {
      const written = await tracesOf(who.organizationId);
      return { done: written.includes(later.requestId), progress: written.length };
    }, 'a record taken after the refused one');

    // Logged once, with its request id; counted.
    const logLines = ledger.logs().split('\n').filter((line) => line.includes('record refused by postgres'));
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toContain(refused.requestId);
    await expect(scrapeMetric(ledger, 'ledger_writer_records_total', { outcome: 'dead_lettered' })).resolves.toBe(1);

    // Nothing is left pending: the refused record's entry was acknowledged with the rest.
    const pending = (await redis.xpending(stream, 'ledger-writers')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });
});
