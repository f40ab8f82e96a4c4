import { randomUUID } from 'node:crypto';
import { createLogger } from '@gateway/lib/logging';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { migrateToLatest, type Database } from '@gateway/lib/db';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '../src/db';
import { MemoryQuotaStore } from '../src/quota/memory-store';
import { periodOf } from '../src/quota/period';
import { RedisQuotaStore } from '../src/quota/redis-store';
import type { CounterKey, Hold, PeriodTotals, QuotaStore } from '../src/quota/store';
import { MemoryRecordQueue } from '../src/queue/memory-queue';
import type { RecordQueue } from '../src/queue/queue';
import { RedisRecordQueue } from '../src/queue/redis-queue';
import { buildPayload } from '../src/recording/build';
import { firstConnection } from '../src/redis/availability';
import { ledgerKeys } from '../src/redis/keys';
import { recordSchema } from '../src/rpc/schemas';
import { parseInput } from '@gateway/lib/validation';
import { startRecordWriter } from '../src/writer/writer';
import { clearRedisPrefix, eventually, ledgerDatabase, recordOf, subject, uniquePrefix } from './support/ledger';

/**
 * One set of cases, run against the Redis store and queue (a real server) and
 * against the in-memory ones of the embedded mode: they must behave alike.
 */
interface Stores {
  quota: QuotaStore;
  queue: RecordQueue;
  close(): Promise<void>;
}

async function redisStores(): Promise<Stores> {
  const prefix = uniquePrefix('contract');
  const keys = ledgerKeys(prefix);
  const commands: Redis = createRedis(testRedisUrl());
  const reader: Redis = createRedis(testRedisUrl());
  await Promise.all([firstConnection(commands, 5000), firstConnection(reader, 5000)]);
  return {
    quota: new RedisQuotaStore(commands, keys),
    queue: new RedisRecordQueue(reader, keys),
    close: async () => {
      commands.disconnect();
      reader.disconnect();
      await clearRedisPrefix(testRedisUrl(), prefix);
    },
  };
}

function memoryStores(): Promise<Stores> {
  const queue = new MemoryRecordQueue();
  return Promise.resolve({ quota: new MemoryQuotaStore(queue), queue, close: () => Promise.resolve() });
}

const totals = (used: Partial<PeriodTotals['used']> = {}, credits = 0n): PeriodTotals => ({
  used: { spend: 0n, requests: 0n, legacy: 0n, ...used },
  credits,
});

/** A queue that passes every call to `queue`, for a test to override one of them. */
function delegatingQueue(queue: RecordQueue): RecordQueue {
  return {
    append: (record, creditsUsed) => queue.append(record, creditsUsed),
    read: (consumer, count, blockMs) => queue.read(consumer, count, blockMs),
    pending: (consumer, count) => queue.pending(consumer, count),
    claim: (consumer, minIdleMs, count) => queue.claim(consumer, minIdleMs, count),
    ack: (ids) => queue.ack(ids),
  };
}

describe.each([
  ['redis', redisStores],
  ['memory', memoryStores],
])('%s quota store and record queue', (_name, makeStores) => {
  let stores: Stores;
  let key: CounterKey;
  const now = Date.now();
  const hold = (id: string, meter: Hold['meter'], amount: bigint, expiresAtMs = now + 600_000): Hold => ({ id, meter, amount, expiresAtMs });
  const reserve = (held: Hold, limit: bigint, { enforce = true, nowMs = now } = {}) =>
    stores.quota.reserve({ ...key, hold: held, limit, enforce, nowMs });
  const settle = (
    holdId: string | null,
    meter: Hold['meter'],
    usage: bigint,
    limit: bigint,
    record = `{"request":"${randomUUID()}"}`,
    commitByMs: number | null = null,
  ) => stores.quota.settle({ ...key, holdId, meter, usage, limit, commitByMs }, record);

  beforeEach(async () => {
    stores = await makeStores();
    key = { organizationId: randomUUID(), period: periodOf(new Date(now)).key };
  });

  afterEach(async () => {
    await stores.close();
  });

  describe('quota store', () => {
    it('reports a period it has not loaded as missing, and changes nothing', async () => {
      await expect(reserve(hold('a', 'spend', 1n), 10n)).resolves.toEqual({ kind: 'missing' });
      await expect(settle(null, 'spend', 5n, 10n)).resolves.toEqual({ kind: 'missing' });
      await expect(stores.quota.counters(key, 'spend')).resolves.toBeUndefined();
      await expect(stores.quota.addCredits(key, 3n)).resolves.toBe(false);
      await expect(stores.quota.setSpendAllowance(key, 3n)).resolves.toBe(false);
      await expect(stores.queue.read('reader', 10, 0)).resolves.toEqual([]);
    });

    it('loads a period once: the first rebuild wins', async () => {
      await stores.quota.rebuild(key, totals({ spend: 700n, requests: 4n, legacy: 2n }, 5n));
      await stores.quota.rebuild(key, totals({ spend: 1n }));
      await expect(stores.quota.counters(key, 'spend')).resolves.toEqual({ used: 700n, credits: 5n, held: 0n });
      await expect(stores.quota.counters(key, 'requests')).resolves.toEqual({ used: 4n, credits: 5n, held: 0n });
      await expect(stores.quota.counters(key, 'legacy')).resolves.toEqual({ used: 2n, credits: 5n, held: 0n });
    });

    it('admits spend while spent plus held plus the estimate fits the allowance', async () => {
      await stores.quota.rebuild(key, totals({ spend: 700n }));
      // Held includes the hold just taken; a refusal reports what the others hold.
      await expect(reserve(hold('a', 'spend', 200n), 1000n)).resolves.toEqual({ kind: 'reserved', counters: { used: 700n, credits: 0n, held: 200n } });
      await expect(reserve(hold('b', 'spend', 100n), 1000n)).resolves.toMatchObject({ kind: 'reserved', counters: { held: 300n } });
      await expect(reserve(hold('c', 'spend', 1n), 1000n)).resolves.toEqual({ kind: 'denied', counters: { used: 700n, credits: 0n, held: 300n } });
      // Fully committed: even a zero estimate is refused.
      await expect(reserve(hold('d', 'spend', 0n), 1000n)).resolves.toMatchObject({ kind: 'denied' });
    });

    it('says on a refusal what the holds in flight take', async () => {
      await stores.quota.rebuild(key, totals({ spend: 100n, requests: 3n }));
      await reserve(hold('a', 'spend', 600n), 1000n);
      await expect(reserve(hold('b', 'spend', 500n), 1000n)).resolves.toEqual({ kind: 'denied', counters: { used: 100n, credits: 0n, held: 600n } });
      await reserve(hold('c', 'requests', 1n), 5n);
      await reserve(hold('d', 'requests', 1n), 5n);
      await expect(reserve(hold('e', 'requests', 1n), 5n)).resolves.toEqual({ kind: 'denied', counters: { used: 3n, credits: 0n, held: 2n } });
    });

    it("admits spend against the organization's own allowance in place of the plan's, from load or set at once", async () => {
      await expect(stores.quota.setSpendAllowance(key, 500n)).resolves.toBe(false);
      await stores.quota.rebuild(key, { ...totals({ spend: 400n }), spendAllowance: 450n });
      await expect(stores.quota.counters(key, 'spend')).resolves.toEqual({ used: 400n, credits: 0n, held: 0n, spendAllowance: 450n });
      // The plan's 1000 would admit 100; the organization's 450 does not.
      await expect(reserve(hold('a', 'spend', 100n), 1000n)).resolves.toEqual({ kind: 'denied', counters: { used: 400n, credits: 0n, held: 0n, spendAllowance: 450n } });
      await expect(stores.quota.setSpendAllowance(key, 600n)).resolves.toBe(true);
      await expect(reserve(hold('b', 'spend', 100n), 1000n)).resolves.toMatchObject({ kind: 'reserved', counters: { spendAllowance: 600n } });
      await expect(settle('b', 'spend', 150n, 1000n)).resolves.toMatchObject({ kind: 'settled', counters: { used: 550n, spendAllowance: 600n } });
      // Back to the plan's: the limit each call passes applies again.
      await expect(stores.quota.setSpendAllowance(key, null)).resolves.toBe(true);
      await expect(reserve(hold('c', 'spend', 400n), 1000n)).resolves.toEqual({ kind: 'reserved', counters: { used: 550n, credits: 0n, held: 400n } });
    });

    it('reserves without enforcement even past the limit', async () => {
      await stores.quota.rebuild(key, totals({ spend: 1000n }));
      await expect(reserve(hold('a', 'spend', 500n), 1000n, { enforce: false })).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('b', 'spend', 0n), 1000n)).resolves.toMatchObject({ kind: 'denied' });
    });

    it('holds, releases and expires a zero estimate like any other', async () => {
      await stores.quota.rebuild(key, totals());
      await expect(reserve(hold('a', 'spend', 0n, now + 1000), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('b', 'spend', 0n), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
      await expect(settle('b', 'spend', 10n, 1000n)).resolves.toMatchObject({ kind: 'settled', counters: { used: 10n } });
      await expect(reserve(hold('c', 'spend', 990n), 1000n, { nowMs: now + 1001 })).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('d', 'spend', 1n), 1000n, { nowMs: now + 1002 })).resolves.toMatchObject({ kind: 'denied' });
    });

    it('holds once per request id', async () => {
      await stores.quota.rebuild(key, totals());
      await expect(reserve(hold('a', 'spend', 600n), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('a', 'spend', 600n), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('b', 'spend', 400n), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
    });

    it('settles: releases the hold, counts the usage and queues exactly one record', async () => {
      await stores.quota.rebuild(key, totals());
      await reserve(hold('a', 'spend', 600n), 1000n);
      await expect(reserve(hold('b', 'spend', 500n), 1000n)).resolves.toMatchObject({ kind: 'denied' });
      await expect(settle('a', 'spend', 300n, 1000n, '{"n":1}')).resolves.toEqual({
        kind: 'settled',
        // What the other holds in flight add up to once this one is released.
        counters: { used: 300n, credits: 0n, held: 0n },
        creditsUsed: 0,
      });
      await expect(reserve(hold('c', 'spend', 700n), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
      const queued = await stores.queue.read('reader', 10, 0);
      expect(queued.map(({ record, creditsUsed }) => ({ record, creditsUsed }))).toEqual([{ record: '{"n":1}', creditsUsed: 0 }]);
    });

    it('past its commit deadline, settles nothing: the hold stays, nothing is counted or queued', async () => {
      await stores.quota.rebuild(key, totals());
      await reserve(hold('a', 'spend', 600n), 1000n);
      await expect(settle('a', 'spend', 300n, 1000n, '{"n":"late"}', Date.now() - 1)).resolves.toEqual({ kind: 'late' });
      await expect(stores.quota.counters(key, 'spend')).resolves.toEqual({ used: 0n, credits: 0n, held: 600n });
      await expect(stores.queue.read('reader', 10, 0)).resolves.toEqual([]);
      // Within it, the same settlement goes through.
      await expect(settle('a', 'spend', 300n, 1000n, '{"n":"in time"}', Date.now() + 60_000)).resolves.toMatchObject({ kind: 'settled' });
      await expect(stores.queue.read('reader', 10, 0)).resolves.toMatchObject([{ record: '{"n":"in time"}' }]);
    });

    it('admits requests up to the limit plus credits, and consumes credits only past the limit', async () => {
      await stores.quota.rebuild(key, totals({}, 3n));
      const ids = ['a', 'b', 'c', 'd', 'e'];
      for (const id of ids) await expect(reserve(hold(id, 'requests', 1n), 2n)).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('f', 'requests', 1n), 2n)).resolves.toMatchObject({ kind: 'denied' });
      const used: number[] = [];
      for (const id of ids) {
        const outcome = await settle(id, 'requests', 1n, 2n);
        if (outcome.kind === 'settled') used.push(outcome.creditsUsed);
      }
      expect(used).toEqual([0, 0, 1, 1, 1]);
      await expect(stores.quota.counters(key, 'requests')).resolves.toEqual({ used: 5n, credits: 0n, held: 0n });
      const queued = await stores.queue.read('reader', 10, 0);
      expect(queued.map(({ creditsUsed }) => creditsUsed)).toEqual([0, 0, 1, 1, 1]);
    });

    it('counts usage without a hold, and nothing for zero usage', async () => {
      await stores.quota.rebuild(key, totals({ legacy: 1n }));
      await expect(settle(null, 'legacy', 1n, 10n)).resolves.toMatchObject({ counters: { used: 2n } });
      await expect(settle(null, 'legacy', 0n, 10n)).resolves.toMatchObject({ counters: { used: 2n } });
      await expect(stores.queue.read('reader', 10, 0)).resolves.toHaveLength(2);
    });

    it('releases an expired hold at the next reservation, once', async () => {
      await stores.quota.rebuild(key, totals());
      await reserve(hold('a', 'spend', 2000n, now + 1000), 2000n);
      await expect(reserve(hold('b', 'spend', 1n), 2000n)).resolves.toMatchObject({ kind: 'denied' });
      await expect(reserve(hold('b', 'spend', 1n), 2000n, { nowMs: now + 1001 })).resolves.toMatchObject({ kind: 'reserved' });
      // The late settlement counts what was spent, and releases nothing twice.
      await settle('a', 'spend', 1000n, 2000n);
      await expect(reserve(hold('c', 'spend', 999n), 2000n, { nowMs: now + 1002 })).resolves.toMatchObject({ kind: 'reserved' });
      await expect(reserve(hold('d', 'spend', 1n), 2000n, { nowMs: now + 1003 })).resolves.toMatchObject({ kind: 'denied' });
    });

    it('adds purchased credits to a loaded period', async () => {
      await stores.quota.rebuild(key, totals({ requests: 2n }, 1n));
      await expect(stores.quota.addCredits(key, 4n)).resolves.toBe(true);
      await expect(stores.quota.counters(key, 'requests')).resolves.toEqual({ used: 2n, credits: 5n, held: 0n });
    });

    it('reports what reservations in flight hold on each meter, until they settle', async () => {
      await stores.quota.rebuild(key, totals({ spend: 100n }));
      await reserve(hold('a', 'spend', 250n), 1000n);
      await reserve(hold('b', 'spend', 40n), 1000n);
      await reserve(hold('c', 'requests', 1n), 10n);
      await expect(stores.quota.counters(key, 'spend')).resolves.toEqual({ used: 100n, credits: 0n, held: 290n });
      await expect(stores.quota.counters(key, 'requests')).resolves.toEqual({ used: 0n, credits: 0n, held: 1n });
      await settle('a', 'spend', 120n, 1000n);
      await expect(stores.quota.counters(key, 'spend')).resolves.toEqual({ used: 220n, credits: 0n, held: 40n });
    });
  });

  describe('record queue', () => {
    it('delivers each record once and leaves unacknowledged ones to be claimed', async () => {
      const ids = [await stores.queue.append('{"n":1}', 0), await stores.queue.append('{"n":2}', 1), await stores.queue.append('{"n":3}', 0)];
      const delivered = await stores.queue.read('first', 10, 0);
      expect(delivered).toEqual([
        { id: ids[0], record: '{"n":1}', creditsUsed: 0 },
        { id: ids[1], record: '{"n":2}', creditsUsed: 1 },
        { id: ids[2], record: '{"n":3}', creditsUsed: 0 },
      ]);
      await expect(stores.queue.read('second', 10, 0)).resolves.toEqual([]);
      await stores.queue.ack([ids[0] ?? '']);
      await expect(stores.queue.claim('second', 60_000, 10)).resolves.toEqual([]);
      const claimed = await stores.queue.claim('second', 0, 10);
      expect(claimed.map(({ id }) => id)).toEqual([ids[1], ids[2]]);
      await stores.queue.ack(claimed.map(({ id }) => id));
      await expect(stores.queue.claim('third', 0, 10)).resolves.toEqual([]);
      await expect(stores.queue.read('third', 10, 0)).resolves.toEqual([]);
    });

    it("reads back what was delivered to a consumer and not acknowledged, and only that consumer's", async () => {
      const ids = [await stores.queue.append('{"n":1}', 0), await stores.queue.append('{"n":2}', 0)];
      await stores.queue.read('first', 1, 0);
      await stores.queue.read('second', 1, 0);
      await expect(stores.queue.pending('first', 10)).resolves.toEqual([{ id: ids[0], record: '{"n":1}', creditsUsed: 0 }]);
      await stores.queue.ack([ids[0] ?? '']);
      await expect(stores.queue.pending('first', 10)).resolves.toEqual([]);
      await expect(stores.queue.pending('second', 10)).resolves.toMatchObject([{ id: ids[1] }]);
      await stores.queue.ack([ids[1] ?? '']);
    });

    it('wakes a waiting read when a settlement queues a record', async () => {
      await stores.quota.rebuild(key, totals());
      const reading = stores.queue.read('reader', 10, 800);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await settle(null, 'spend', 1n, 10n, '{"late":true}');
      const [first, ...rest] = await reading;
      expect(first?.record).toBe('{"late":true}');
      expect(rest).toEqual([]);
    });
  });

  describe('with the writer', () => {
    let database: TestDatabase;
    let db: Database<LedgerDatabase>;

    beforeAll(async () => {
      database = await createTestDatabase('ledger_contract');
      db = ledgerDatabase(database.url);
      await migrateToLatest(db.db, LEDGER_SCHEMA, ledgerMigrations);
    });

    afterAll(async () => {
      await db.destroy();
      await database.drop();
    });

    it('drains settled records into Postgres and acknowledges them', async () => {
      await stores.quota.rebuild(key, totals());
      const who = subject({ organizationId: key.organizationId });
      const records = Array.from({ length: 25 }, () => parseInput(recordSchema, recordOf(who)));
      for (const record of records) {
        await settle(null, 'spend', 100n, 10_000n, JSON.stringify(buildPayload(record, 'spend', periodOf(new Date(now)), new Date())));
      }
      const writer = startRecordWriter(
        { db: db.db, queue: stores.queue, logger: createLogger({ service: 'test', level: 'silent' }) },
        { consumer: 'writer', batchSize: 10, blockMs: 50, lingerMs: 0, claimIdleMs: 60_000 },
      );
      try {
        const written = await eventually(async () => {
          const rows = await db.db.selectFrom('traces').select('request_id').where('organization_id', '=', key.organizationId).execute();
          return rows.length === records.length ? rows : undefined;
        });
        expect(written.map(({ request_id }) => request_id).sort()).toEqual(records.map(({ requestId }) => requestId).sort());
      } finally {
        await writer.stop();
      }
      const entries = await db.db.selectFrom('ledger_entries').select('amount_micros').where('organization_id', '=', key.organizationId).execute();
      expect(entries).toHaveLength(25);
      await expect(stores.queue.claim('other', 0, 100)).resolves.toEqual([]);
      await expect(stores.queue.read('other', 100, 0)).resolves.toEqual([]);
    });

    it('after a short batch, lets the next records gather for the linger time and writes them as one batch', async () => {
      await stores.quota.rebuild(key, totals());
      const who = subject({ organizationId: key.organizationId });
      const queueRecord = async () => {
        const record = parseInput(recordSchema, recordOf(who));
        await settle(null, 'spend', 100n, 10_000n, JSON.stringify(buildPayload(record, 'spend', periodOf(new Date(now)), new Date())));
      };
      const batches: number[] = [];
      const counting: RecordQueue = {
        ...delegatingQueue(stores.queue),
        read: async (consumer, count, blockMs) => {
          const batch = await stores.queue.read(consumer, count, blockMs);
          if (batch.length > 0) batches.push(batch.length);
          return batch;
        },
      };
      const traces = () => db.db.selectFrom('traces').select('request_id').where('organization_id', '=', key.organizationId).execute();
      const before = (await traces()).length;
      await queueRecord();
      const writer = startRecordWriter(
        { db: db.db, queue: counting, logger: createLogger({ service: 'test', level: 'silent' }) },
        { consumer: 'lingering-writer', batchSize: 10, blockMs: 50, lingerMs: 1500, claimIdleMs: 60_000 },
      );
      try {
        await eventually(async () => ((await traces()).length === before + 1 ? true : undefined));
        // Queued while the writer lingers after its batch of one.
        for (let index = 0; index < 5; index += 1) await queueRecord();
        await eventually(async () => ((await traces()).length === before + 6 ? true : undefined));
      } finally {
        await writer.stop();
      }
      expect(batches).toEqual([1, 5]);
    });

    it('writes at once what a read delivered before it failed, instead of leaving it to the claim', async () => {
      await stores.quota.rebuild(key, totals());
      const who = subject({ organizationId: key.organizationId });
      const records = Array.from({ length: 3 }, () => parseInput(recordSchema, recordOf(who)));
      for (const record of records) {
        await settle(null, 'spend', 100n, 10_000n, JSON.stringify(buildPayload(record, 'spend', periodOf(new Date(now)), new Date())));
      }
      // The first read is carried out and then fails on its way back, as a timed-out command does.
      let reads = 0;
      const failingOnce: RecordQueue = {
        ...delegatingQueue(stores.queue),
        read: async (consumer, count, blockMs) => {
          reads += 1;
          const batch = await stores.queue.read(consumer, count, blockMs);
          if (reads === 1) throw new Error('Command timed out');
          return batch;
        },
      };
      const traces = () => db.db.selectFrom('traces').select('request_id').where('organization_id', '=', key.organizationId).execute();
      const writer = startRecordWriter(
        { db: db.db, queue: failingOnce, logger: createLogger({ service: 'test', level: 'silent' }) },
        { consumer: 'timed-out-writer', batchSize: 10, blockMs: 50, lingerMs: 0, claimIdleMs: 600_000 },
      );
      try {
        // Written, or three more reads went by without it (the claim would take ten minutes).
        const written = await eventually(async () => {
          const rows = await traces();
          return rows.length === records.length || reads >= 4 ? rows : undefined;
        });
        expect(written.map(({ request_id }) => request_id).sort()).toEqual(records.map(({ requestId }) => requestId).sort());
      } finally {
        await writer.stop();
      }
    });
  });
});
