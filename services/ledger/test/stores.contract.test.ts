import { randomUUID } from 'node:crypto';
import { createLogger } from '@gateway/lib/logging';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { migrateToLatest, type Database } from '@gateway/lib/db';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '../src/db';
import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import { MemoryAllowanceChanges, type AllowanceChanges } from '../src/leases/changes';
import { leaseHoldId } from '../src/leases/lease';
import { redisAllowanceChanges } from '../src/leases/redis-changes';
import { MemoryQuotaStore } from '../src/quota/memory-store';
import { periodOf } from '../src/quota/period';
import { RedisQuotaStore } from '../src/quota/redis-store';
import type { CounterKey, Hold, LeaseOutcome, PeriodTotals, QuotaStore } from '../src/quota/store';
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
  /** Where the store's announcements of allowance changes are heard. */
  changes: AllowanceChanges;
  close(): Promise<void>;
}

async function redisStores(): Promise<Stores> {
  const prefix = uniquePrefix('contract');
  const keys = ledgerKeys(prefix);
  const commands: Redis = createRedis(testRedisUrl());
  const reader: Redis = createRedis(testRedisUrl());
  const subscriber: Redis = createRedis(testRedisUrl());
  const quota = new RedisQuotaStore(commands, keys);
  const changes = redisAllowanceChanges(subscriber, keys.allowanceChanges, createLogger({ service: 'test', level: 'silent' }), () => quota.announce(EVERY_ORGANIZATION));
  await Promise.all([commands, reader, subscriber].map((connection) => firstConnection(connection, 5000)));
  await changes.subscribed();
  return {
    quota,
    queue: new RedisRecordQueue(reader, keys),
    changes,
    close: async () => {
      commands.disconnect();
      reader.disconnect();
      subscriber.disconnect();
      await clearRedisPrefix(testRedisUrl(), prefix);
    },
  };
}

function memoryStores(): Promise<Stores> {
  const queue = new MemoryRecordQueue();
  const changes = new MemoryAllowanceChanges();
  return Promise.resolve({ quota: new MemoryQuotaStore(queue, changes), queue, changes, close: () => Promise.resolve() });
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
  ) => stores.quota.settle({ ...key, holdId, leaseId: null, nowMs: now, leaseExpiresAtMs: now + 10_000, meter, usage, limit, commitByMs }, record);
  /** One holder's ask, as the Lease handler makes it (a 10 s term, a quarter of what is left at most beyond the need). */
  const lease = (
    holder: string,
    meter: Hold['meter'],
    limit: bigint,
    { need = 0n, want = 0n, giveBack = 0n, enforce = true, nowMs = now, ttlMs = 10_000 } = {},
  ) =>
    stores.quota.lease({ ...key, holdId: leaseHoldId(holder, meter), meter, need, want, giveBack, limit, enforce, nowMs, expiresAtMs: nowMs + ttlMs, shareDivisor: 4n });
  /** Record's settlement of a call admitted against the holder's lease. */
  const settleLease = (holder: string, meter: Hold['meter'], usage: bigint, limit: bigint, { nowMs = now, ttlMs = 10_000 } = {}) =>
    stores.quota.settle(
      { ...key, holdId: null, leaseId: leaseHoldId(holder, meter), nowMs, leaseExpiresAtMs: nowMs + ttlMs, meter, usage, limit, commitByMs: null },
      `{"lease":"${holder}"}`,
    );

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
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toBeUndefined();
      await expect(stores.quota.addCredits(key, 3n)).resolves.toBe(false);
      await expect(stores.quota.setSpendAllowance(key, 3n)).resolves.toBe(false);
      await expect(stores.queue.read('reader', 10, 0)).resolves.toEqual([]);
    });

    it('loads a period once: the first rebuild wins', async () => {
      await stores.quota.rebuild(key, totals({ spend: 700n, requests: 4n, legacy: 2n }, 5n));
      await stores.quota.rebuild(key, totals({ spend: 1n }));
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 700n, credits: 5n, held: 0n });
      await expect(stores.quota.counters(key, 'requests', now)).resolves.toEqual({ used: 4n, credits: 5n, held: 0n });
      await expect(stores.quota.counters(key, 'legacy', now)).resolves.toEqual({ used: 2n, credits: 5n, held: 0n });
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
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 400n, credits: 0n, held: 0n, spendAllowance: 450n });
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
        leaseRenewed: false,
      });
      await expect(reserve(hold('c', 'spend', 700n), 1000n)).resolves.toMatchObject({ kind: 'reserved' });
      const queued = await stores.queue.read('reader', 10, 0);
      expect(queued.map(({ record, creditsUsed }) => ({ record, creditsUsed }))).toEqual([{ record: '{"n":1}', creditsUsed: 0 }]);
    });

    it('past its commit deadline, settles nothing: the hold stays, nothing is counted or queued', async () => {
      await stores.quota.rebuild(key, totals());
      await reserve(hold('a', 'spend', 600n), 1000n);
      await expect(settle('a', 'spend', 300n, 1000n, '{"n":"late"}', Date.now() - 1)).resolves.toEqual({ kind: 'late' });
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 0n, credits: 0n, held: 600n });
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
      await expect(stores.quota.counters(key, 'requests', now)).resolves.toEqual({ used: 5n, credits: 0n, held: 0n });
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
      await expect(stores.quota.counters(key, 'requests', now)).resolves.toEqual({ used: 2n, credits: 5n, held: 0n });
    });

    it('reports what reservations in flight hold on each meter, until they settle', async () => {
      await stores.quota.rebuild(key, totals({ spend: 100n }));
      await reserve(hold('a', 'spend', 250n), 1000n);
      await reserve(hold('b', 'spend', 40n), 1000n);
      await reserve(hold('c', 'requests', 1n), 10n);
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 100n, credits: 0n, held: 290n });
      await expect(stores.quota.counters(key, 'requests', now)).resolves.toEqual({ used: 0n, credits: 0n, held: 1n });
      await settle('a', 'spend', 120n, 1000n);
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 220n, credits: 0n, held: 40n });
    });
  });

  describe('leases', () => {
    const granted = (outcome: LeaseOutcome) => (outcome.kind === 'missing' ? 0n : outcome.granted);

    it('reports a period it has not loaded as missing', async () => {
      await expect(lease('edge-a', 'spend', 1000n, { need: 1n })).resolves.toEqual({ kind: 'missing' });
    });

    it('grants the need and a share of what is left, as a hold in the same counters', async () => {
      await stores.quota.rebuild(key, totals({ spend: 200n }));
      // Left 800: a quarter of it, since need + want is more.
      await expect(lease('edge-a', 'spend', 1000n, { need: 50n, want: 1000n })).resolves.toEqual({
        kind: 'granted',
        granted: 200n,
        leaseHeld: 200n,
        counters: { used: 200n, credits: 0n, held: 200n },
      });
      // Left 600: a quarter is 150; the same lease holds both grants.
      await expect(lease('edge-a', 'spend', 1000n, { need: 10n, want: 1000n })).resolves.toMatchObject({ kind: 'granted', granted: 150n, leaseHeld: 350n });
      // Need + want below the share: just that.
      await expect(lease('edge-b', 'spend', 1000n, { need: 10n, want: 20n })).resolves.toMatchObject({ granted: 30n, leaseHeld: 30n, counters: { held: 380n } });
      // A reservation is admitted against what the leases left: 1000 - 200 - 380.
      await expect(reserve(hold('r', 'spend', 421n), 1000n)).resolves.toMatchObject({ kind: 'denied' });
      await expect(reserve(hold('r', 'spend', 420n), 1000n)).resolves.toMatchObject({ kind: 'reserved', counters: { held: 800n } });
    });

    it('shrinks the slices to one call near the end of the allowance, then refuses', async () => {
      await stores.quota.rebuild(key, totals({ spend: 988n, requests: 3n }));
      const slices: bigint[] = [];
      for (;;) {
        const outcome = await lease('edge-a', 'spend', 1000n, { need: 3n, want: 100n });
        if (outcome.kind !== 'granted') break;
        slices.push(outcome.granted);
      }
      // Left 12 (a quarter: 3), 9 (2), 6 (1), 3 (0): always the need, and nothing is left.
      expect(slices).toEqual([3n, 3n, 3n, 3n]);
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 988n, credits: 0n, held: 12n });
      // Requests: 2 left of the limit, a quarter of it is 0, so one call's request.
      await expect(lease('edge-a', 'requests', 5n, { need: 1n, want: 10n })).resolves.toMatchObject({ kind: 'granted', granted: 1n, leaseHeld: 1n });
    });

    it('refuses a need that does not fit when enforced, and grants it for legacy subjects', async () => {
      await stores.quota.rebuild(key, totals({ spend: 900n }));
      await expect(lease('edge-a', 'spend', 1000n, { need: 101n, want: 50n })).resolves.toEqual({
        kind: 'denied',
        granted: 0n,
        leaseHeld: null,
        counters: { used: 900n, credits: 0n, held: 0n },
      });
      // Nothing left: even a lease for later calls only is refused, as a zero reservation is.
      await lease('edge-b', 'spend', 1000n, { need: 100n });
      await expect(lease('edge-a', 'spend', 1000n, { want: 50n })).resolves.toMatchObject({ kind: 'denied', granted: 0n });
      await expect(lease('edge-a', 'spend', 1000n, { need: 101n, want: 50n, enforce: false })).resolves.toMatchObject({
        kind: 'granted',
        granted: 101n,
        counters: { used: 900n, held: 201n },
      });
    });

    it('never has out more than is left, however many holders ask at once', async () => {
      await stores.quota.rebuild(key, totals({ spend: 100n }));
      const outcomes = await Promise.all(Array.from({ length: 60 }, (_, index) => lease(`edge-${index}`, 'spend', 1000n, { need: 7n, want: 500n })));
      const total = outcomes.reduce((sum, outcome) => sum + granted(outcome), 0n);
      expect(total).toBeLessThanOrEqual(900n);
      expect(outcomes.filter((outcome) => outcome.kind === 'denied').length).toBeGreaterThan(0);
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual({ used: 100n, credits: 0n, held: total });
    });

    it("takes a lease-admitted call's usage off the lease, which stays, and counts it", async () => {
      await stores.quota.rebuild(key, totals());
      await lease('edge-a', 'spend', 1000n, { need: 400n });
      await expect(settleLease('edge-a', 'spend', 150n, 1000n)).resolves.toMatchObject({ kind: 'settled', counters: { used: 150n, held: 250n } });
      await expect(lease('edge-a', 'spend', 1000n)).resolves.toMatchObject({ kind: 'granted', granted: 0n, leaseHeld: 250n });
      // More than the lease holds (the call cost more than admitted): the hold ends at 0, the usage counts whole.
      await expect(settleLease('edge-a', 'spend', 300n, 1000n)).resolves.toMatchObject({ counters: { used: 450n, held: 0n } });
      await expect(lease('edge-a', 'spend', 1000n, { need: 10n })).resolves.toMatchObject({ granted: 10n, leaseHeld: 10n });
      const queued = await stores.queue.read('reader', 10, 0);
      expect(queued).toHaveLength(2);
    });

    it('gives back and settles in either order to the same counters', async () => {
      await stores.quota.rebuild(key, totals());
      const first = { organizationId: key.organizationId, period: key.period };
      await lease('edge-a', 'spend', 1000n, { need: 400n });
      await settleLease('edge-a', 'spend', 100n, 1000n);
      await lease('edge-a', 'spend', 1000n, { giveBack: 250n });
      const settledFirst = await stores.quota.counters(first, 'spend', now);

      key = { organizationId: randomUUID(), period: key.period };
      await stores.quota.rebuild(key, totals());
      await lease('edge-a', 'spend', 1000n, { need: 400n });
      await lease('edge-a', 'spend', 1000n, { giveBack: 250n });
      await settleLease('edge-a', 'spend', 100n, 1000n);
      expect(settledFirst).toEqual({ used: 100n, credits: 0n, held: 50n });
      await expect(stores.quota.counters(key, 'spend', now)).resolves.toEqual(settledFirst);
      // Giving back more than is held takes it to 0 and removes the lease.
      await expect(lease('edge-a', 'spend', 1000n, { giveBack: 500n })).resolves.toMatchObject({ kind: 'granted', leaseHeld: null, counters: { held: 0n } });
    });

    it("gives an expired lease's slice back, and then only counts the usage of its late calls", async () => {
      await stores.quota.rebuild(key, totals());
      await lease('edge-a', 'spend', 1000n, { need: 800n, ttlMs: 1000 });
      await expect(lease('edge-b', 'spend', 1000n, { need: 300n, nowMs: now + 999 })).resolves.toMatchObject({ kind: 'denied' });
      await expect(lease('edge-b', 'spend', 1000n, { need: 300n, nowMs: now + 1000 })).resolves.toMatchObject({
        kind: 'granted',
        counters: { held: 300n },
      });
      await expect(settleLease('edge-a', 'spend', 100n, 1000n)).resolves.toMatchObject({ counters: { used: 100n, held: 300n } });
    });

    it("gives an expired lease's slice back on a read too, so an organization with no traffic does not show it as held", async () => {
      await stores.quota.rebuild(key, totals());
      await lease('edge-a', 'spend', 1000n, { need: 800n, ttlMs: 1000 });
      await expect(stores.quota.counters(key, 'spend', now + 999)).resolves.toEqual({ used: 0n, credits: 0n, held: 800n });
      await expect(stores.quota.counters(key, 'spend', now + 1000)).resolves.toEqual({ used: 0n, credits: 0n, held: 0n });
      // Given back once: the lease that follows is granted from the whole allowance, and held alone.
      await expect(lease('edge-b', 'spend', 1000n, { need: 300n, nowMs: now + 1001 })).resolves.toMatchObject({ kind: 'granted', counters: { held: 300n } });
    });

    it('renews a lease a call settles against while it is held, and never one already expired', async () => {
      await stores.quota.rebuild(key, totals());
      await lease('edge-a', 'spend', 1000n, { need: 500n, ttlMs: 1000 });
      // Settled at 900 with a term of 1,000: the lease lasts until 1,900.
      await expect(settleLease('edge-a', 'spend', 100n, 1000n, { nowMs: now + 900, ttlMs: 1000 })).resolves.toMatchObject({ kind: 'settled', leaseRenewed: true });
      await expect(stores.quota.counters(key, 'spend', now + 1899)).resolves.toEqual({ used: 100n, credits: 0n, held: 400n });
      await expect(stores.quota.counters(key, 'spend', now + 1900)).resolves.toEqual({ used: 100n, credits: 0n, held: 0n });
      // Expired and given back: a late call's settlement counts its usage and brings nothing back.
      await expect(settleLease('edge-a', 'spend', 50n, 1000n, { nowMs: now + 2000, ttlMs: 1000 })).resolves.toMatchObject({ leaseRenewed: false, counters: { used: 150n, held: 0n } });
      // Expired at 3,000 but not given back yet: not renewed either, and the next read gives it back.
      await lease('edge-b', 'spend', 1000n, { need: 100n, nowMs: now + 2000, ttlMs: 1000 });
      await expect(settleLease('edge-b', 'spend', 10n, 1000n, { nowMs: now + 3000, ttlMs: 1000 })).resolves.toMatchObject({ leaseRenewed: false });
      await expect(stores.quota.counters(key, 'spend', now + 3000)).resolves.toEqual({ used: 160n, credits: 0n, held: 0n });
    });

    it('renews: a lease asked for nothing lasts another term', async () => {
      await stores.quota.rebuild(key, totals());
      await lease('edge-a', 'spend', 1000n, { need: 500n, ttlMs: 1000 });
      await expect(lease('edge-a', 'spend', 1000n, { nowMs: now + 900, ttlMs: 1000 })).resolves.toMatchObject({ kind: 'granted', granted: 0n, leaseHeld: 500n });
      await expect(lease('edge-b', 'spend', 1000n, { need: 600n, nowMs: now + 1500 })).resolves.toMatchObject({ kind: 'denied' });
      await expect(lease('edge-b', 'spend', 1000n, { need: 600n, nowMs: now + 1900 })).resolves.toMatchObject({ kind: 'granted', counters: { held: 600n } });
      // A renewal of a lease that holds nothing leaves none.
      await expect(lease('edge-c', 'spend', 1000n)).resolves.toMatchObject({ kind: 'granted', leaseHeld: null });
    });

    it.each([
      ['spend', 1000n, totals({ spend: 300n }), 70n, 10, { used: 1000n, credits: 0n, held: 0n }],
      ['requests', 4n, totals({ requests: 1n }, 2n), 1n, 5, { used: 6n, credits: 0n, held: 0n }],
    ] as const)('lets two holders drain a %s allowance to exactly zero', async (meter, limit, loaded, cost, calls, drained) => {
      await stores.quota.rebuild(key, loaded);
      // Each holder's slice as it counts it: what its lease holds, since every call uses what it needed.
      const slices = new Map<string, bigint>();
      let served = 0;
      let refusedInARow = 0;
      for (let call = 0; refusedInARow < 2; call += 1) {
        const holder = call % 2 === 0 ? 'edge-a' : 'edge-b';
        let slice = slices.get(holder) ?? 0n;
        if (slice < cost) {
          const outcome = await lease(holder, meter, limit, { need: cost - slice, want: cost * 3n });
          if (outcome.kind !== 'granted') {
            refusedInARow += 1;
            continue;
          }
          slice += outcome.granted;
        }
        refusedInARow = 0;
        slices.set(holder, slice - cost);
        await settleLease(holder, meter, cost, limit);
        served += 1;
      }
      expect(served).toBe(calls);
      expect([...slices.values()]).toEqual([0n, 0n]);
      await expect(stores.quota.counters(key, meter, now)).resolves.toEqual(drained);
    });

    it('announces credits granted and an own allowance set or removed, loaded or not', async () => {
      const heard: string[] = [];
      let allHeard: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (allHeard = resolve));
      const unsubscribe = stores.changes.subscribe((organizationId) => {
        heard.push(organizationId);
        if (heard.length === 4) allHeard();
      });
      try {
        await stores.quota.addCredits(key, 1n);
        await stores.quota.rebuild(key, totals());
        await stores.quota.addCredits(key, 1n);
        await stores.quota.setSpendAllowance(key, 10n);
        await stores.quota.setSpendAllowance(key, null);
        await done;
      } finally {
        unsubscribe();
      }
      expect(heard).toEqual(Array.from({ length: 4 }, () => key.organizationId));
    });

    it.each([
      ['every organization (a catalog change)', () => EVERY_ORGANIZATION],
      ['one organization (its unused slices wanted back)', () => key.organizationId],
    ])('announces %s to every watcher when asked', async (_, which) => {
      const announced = which();
      const heard = new Promise<string>((resolve) => {
        const unsubscribe = stores.changes.subscribe((organizationId) => {
          unsubscribe();
          resolve(organizationId);
        });
      });
      await stores.quota.announce(announced);
      await expect(heard).resolves.toBe(announced);
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
