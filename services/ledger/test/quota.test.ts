import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { DomainError } from '@gateway/lib/errors';
import type { Database } from '@gateway/lib/db';
import { Meter } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import type { ServiceProcess } from '../../../test/support/processes';
import type { LedgerDatabase } from '../src/db';
import { ledgerKeys } from '../src/redis/keys';
import {
  clearRedisPrefix,
  currentPeriodKey,
  cycle,
  eventually,
  ledgerClient,
  ledgerDatabase,
  newRequestId,
  nextUtcMonth,
  recordOf,
  startLedger,
  subject,
  uniquePrefix,
  writeTestCatalog,
  type LedgerClient,
  type TestCatalog,
} from './support/ledger';

/** CheckQuota, Record and GetQuota on a real ledger process over real Postgres and Redis. */
describe('ledger quota', () => {
  const prefix = uniquePrefix('quota');
  let database: TestDatabase;
  let catalog: TestCatalog;
  let ledger: ServiceProcess;
  let client: LedgerClient;
  let db: Database<LedgerDatabase>;
  let redis: Redis;

  beforeAll(async () => {
    database = await createTestDatabase('ledger_quota');
    catalog = writeTestCatalog();
    ledger = await startLedger({ databaseUrl: database.url, redisUrl: testRedisUrl(), prefix, catalogPath: catalog.path });
    client = ledgerClient(ledger.address);
    db = ledgerDatabase(database.url);
    redis = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    client?.close();
    await ledger?.stop();
    await db?.destroy();
    redis?.disconnect();
    await clearRedisPrefix(testRedisUrl(), prefix);
    catalog?.remove();
    await database?.drop();
  });

  const entriesOf = (organizationId: string) =>
    db.db.selectFrom('ledger_entries').selectAll().where('organization_id', '=', organizationId).execute();

  describe('spend meter', () => {
    it('reports allowance, spent and remaining in micro-dollars, and the reset', async () => {
      const who = subject();
      const before = await client.getQuota({ subject: who });
      expect(before.quota).toMatchObject({
        meter: Meter.METER_SPEND,
        allowanceMicros: '1000',
        spentMicros: '0',
        remainingMicros: '1000',
        limit: '0',
        used: '0',
        hasCredits: false,
      });
      expect(before.quota?.resetsAt).toEqual(nextUtcMonth());

      await cycle(client, who, { estimate: '100', cost: '250' });
      const after = await client.getQuota({ subject: who });
      expect(after.quota).toMatchObject({ spentMicros: '250', remainingMicros: '750' });
    });

    it('reports what a call in flight holds until it is recorded', async () => {
      const who = subject();
      const held = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '300' });
      expect(held.allowed).toBe(true);
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ spentMicros: '0', heldMicros: '300', remainingMicros: '700' });
      await cycle(client, who, { estimate: '100', cost: '40' });
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ spentMicros: '40', heldMicros: '300', remainingMicros: '660' });
    });

    it('says on a refusal what calls in flight hold, so spent, held and remaining show why', async () => {
      const who = subject();
      await cycle(client, who, { estimate: '100', cost: '100' });
      expect((await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '600' })).allowed).toBe(true);
      const refused = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '500' });
      expect(refused.allowed).toBe(false);
      expect(refused.quota).toMatchObject({ allowanceMicros: '1000', spentMicros: '100', heldMicros: '600', remainingMicros: '300' });
    });

    it('refuses once exhausted, with retry-after in seconds to the next UTC month', async () => {
      const who = subject();
      await cycle(client, who, { estimate: '500', cost: '1000' });
      const startedAt = Date.now();
      const refused = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '0' });
      const answeredAt = Date.now();
      const reset = nextUtcMonth(new Date(startedAt)).getTime();
      expect(refused.allowed).toBe(false);
      expect(refused.reservationId).toBe('');
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil((reset - startedAt) / 1000));
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(Math.ceil((reset - answeredAt) / 1000));
      expect(refused.quota).toMatchObject({ allowanceMicros: '1000', spentMicros: '1000', remainingMicros: '0' });
      expect(refused.quota?.resetsAt?.getTime()).toBe(reset);
    });

    it('refuses an estimate that does not fit what is left', async () => {
      const who = subject();
      await cycle(client, who, { estimate: '100', cost: '800' });
      const tooBig = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '300' });
      expect(tooBig.allowed).toBe(false);
      const fits = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '200' });
      expect(fits.allowed).toBe(true);
      expect(fits.reservationId).toMatch(new RegExp(`^${currentPeriodKey()}:[0-9a-f]{32}$`));
    });

    it('lets at most allowance / estimate of 50 concurrent requests through', async () => {
      const who = subject();
      const results = await Promise.all(Array.from({ length: 50 }, () => cycle(client, who, { estimate: '100', cost: '100' })));
      expect(results.filter(({ allowed }) => allowed)).toHaveLength(10);
      expect(results.every(({ accepted }) => accepted)).toBe(true);
      const { quota } = await client.getQuota({ subject: who });
      expect(quota).toMatchObject({ spentMicros: '1000', remainingMicros: '0' });
    });

    it('overshoots by no more than what was in flight when actual costs beat the estimates', async () => {
      const who = subject();
      // Each call holds 100 but costs 150: the 10 admitted at once may spend 1,500, never more.
      const results = await Promise.all(Array.from({ length: 50 }, () => cycle(client, who, { estimate: '100', cost: '150' })));
      const admitted = results.filter(({ allowed }) => allowed).length;
      expect(admitted).toBeLessThanOrEqual(10);
      const { quota } = await client.getQuota({ subject: who });
      expect(BigInt(quota?.spentMicros ?? '0')).toBe(BigInt(admitted * 150));
    });
  });

  describe('requests meter', () => {
    it('meters BYOK traffic in requests against the plan limit', async () => {
      const who = subject({ byok: true });
      await cycle(client, who);
      const { quota } = await client.getQuota({ subject: who });
      expect(quota).toMatchObject({
        meter: Meter.METER_REQUESTS,
        limit: '10',
        used: '1',
        remaining: '9',
        credits: '0',
        hasCredits: false,
        allowanceMicros: '0',
      });
    });

    it('meters managed traffic of a requests plan', async () => {
      const who = subject({ planTier: 'counted' });
      const results = [];
      for (let index = 0; index < 5; index += 1) results.push(await cycle(client, who));
      expect(results.map(({ allowed }) => allowed)).toEqual([true, true, true, true, false]);
      const { quota } = await client.getQuota({ subject: who });
      expect(quota).toMatchObject({ meter: Meter.METER_REQUESTS, limit: '4', used: '4', remaining: '0' });
    });

    it('does not count a request that never reached the provider', async () => {
      const who = subject({ byok: true });
      const requestId = newRequestId();
      const { reservationId } = await client.checkQuota({ subject: who, requestId, estimatedCostMicros: '0' });
      await client.record(recordOf(who, { requestId, reservationId, consumed: false, httpStatus: 502, errorClass: 'provider' }));
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ used: '0', remaining: '10' });
    });

    it('lets exactly the limit of 50 concurrent requests through', async () => {
      const who = subject({ byok: true });
      const results = await Promise.all(Array.from({ length: 50 }, () => cycle(client, who)));
      expect(results.filter(({ allowed }) => allowed)).toHaveLength(10);
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ used: '10', remaining: '0' });
    });

    it('counts purchased credits in remaining and consumes them past the limit', async () => {
      const who = subject({ byok: true });
      const organizationId = who.organizationId;
      const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
      await db.db
        .insertInto('credits')
        .values([
          { organization_id: organizationId, amount: 3, remaining: 2, expires_at: null },
          { organization_id: organizationId, amount: 5, remaining: 5, expires_at: yesterday },
          { organization_id: organizationId, amount: 4, remaining: 0, expires_at: null },
        ])
        .execute();

      const before = await client.getQuota({ subject: who });
      expect(before.quota).toMatchObject({ limit: '10', used: '0', credits: '2', hasCredits: true, remaining: '12' });

      const results = [];
      for (let index = 0; index < 13; index += 1) results.push(await cycle(client, who));
      expect(results.filter(({ allowed }) => allowed)).toHaveLength(12);
      expect(results.at(-1)?.allowed).toBe(false);
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ used: '12', credits: '0', hasCredits: false, remaining: '0' });

      // The writer takes the consumed credits off the purchase in Postgres, and only that one.
      const credits = await eventually(async () => {
        const rows = await db.db.selectFrom('credits').select(['amount', 'remaining']).where('organization_id', '=', organizationId).orderBy('amount').execute();
        return rows[0]?.remaining === 0 && rows.length === 3 ? rows : undefined;
      });
      expect(credits).toEqual([
        { amount: 3, remaining: 0 },
        { amount: 4, remaining: 0 },
        { amount: 5, remaining: 5 },
      ]);
      const entries = await eventually(async () => {
        const rows = await entriesOf(organizationId);
        return rows.length === 13 ? rows : undefined;
      });
      expect(entries.reduce((sum, entry) => sum + entry.credits_used, 0)).toBe(2);
    });
  });

  describe('legacy meter', () => {
    it("uses the agent record's message limit and never blocks a legacy credential, but counts it", async () => {
      const who = subject({ planTier: 'legacy_basic', messagesLimit: '3', enforce: false, agentId: randomUUID() });
      const results = [];
      for (let index = 0; index < 5; index += 1) results.push(await cycle(client, who));
      expect(results.every(({ allowed }) => allowed)).toBe(true);
      const { quota } = await client.getQuota({ subject: who });
      expect(quota).toMatchObject({ meter: Meter.METER_LEGACY, limit: '3', used: '5', remaining: '0' });
    });

    it("falls back to the plan's messages per month when the record sets no limit", async () => {
      const who = subject({ planTier: 'legacy_basic', messagesLimit: '0' });
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ meter: Meter.METER_LEGACY, limit: '1000', remaining: '1000' });
    });

    it('blocks on the legacy meter when enforcement applies', async () => {
      const who = subject({ planTier: 'legacy_basic', messagesLimit: '2', enforce: true });
      const results = [];
      for (let index = 0; index < 3; index += 1) results.push(await cycle(client, who));
      expect(results.map(({ allowed }) => allowed)).toEqual([true, true, false]);
    });

    it('never blocks a legacy credential on a spend plan either', async () => {
      const who = subject({ enforce: false });
      const results = [];
      for (let index = 0; index < 3; index += 1) results.push(await cycle(client, who, { estimate: '600', cost: '600' }));
      expect(results.every(({ allowed }) => allowed)).toBe(true);
      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ spentMicros: '1800', remainingMicros: '0' });
    });
  });

  describe('counters are a cache of the month', () => {
    it('rebuilds a deleted counter from the Postgres ledger before answering', async () => {
      const who = subject();
      const byok = { ...who, byok: true };
      await cycle(client, who, { cost: '100' });
      await cycle(client, who, { cost: '250' });
      await cycle(client, byok);
      await eventually(async () => ((await entriesOf(who.organizationId)).length === 3 ? true : undefined));

      const key = ledgerKeys(prefix).counters({ organizationId: who.organizationId, period: currentPeriodKey() });
      expect(await redis.del(key)).toBe(1);

      expect((await client.getQuota({ subject: who })).quota).toMatchObject({ spentMicros: '350', remainingMicros: '650' });
      expect((await client.getQuota({ subject: byok })).quota).toMatchObject({ used: '1', remaining: '9' });
      await redis.del(key);
      const decision = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '700' });
      expect(decision.allowed).toBe(false);
    });

    it('keeps holds in flight across a rebuild, and releases them when they settle', async () => {
      const who = subject();
      const requestId = newRequestId();
      const { reservationId } = await client.checkQuota({ subject: who, requestId, estimatedCostMicros: '400' });
      const key = ledgerKeys(prefix).counters({ organizationId: who.organizationId, period: currentPeriodKey() });
      await redis.del(key);

      // Rebuilt with the 400 still held: 700 more does not fit.
      expect((await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '700' })).allowed).toBe(false);
      await client.record(recordOf(who, { requestId, reservationId, costMicros: '300' }));
      expect(await redis.hget(key, 'spend_reserved')).toBe('0');
      expect((await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '700' })).allowed).toBe(true);
    });
  });

  describe('bad input', () => {
    const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

    it('names the field of a malformed subject', async () => {
      const error = await rejection(
        client.checkQuota({ subject: subject({ organizationId: 'org-1' }), requestId: newRequestId(), estimatedCostMicros: '0' }),
      );
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'validation', field: 'subject.organization_id', message: 'subject.organization_id: must be a UUID' });
    });

    it('requires the subject', async () => {
      const error = await rejection(client.getQuota({ subject: undefined }));
      expect(error).toMatchObject({ kind: 'validation', field: 'subject', message: 'subject: is required' });
    });

    it('rejects a request id that is not a trace id', async () => {
      const error = await rejection(client.checkQuota({ subject: subject(), requestId: 'abc', estimatedCostMicros: '0' }));
      expect(error).toMatchObject({ kind: 'validation', field: 'request_id' });
    });

    it('rejects a negative estimate', async () => {
      const error = await rejection(client.checkQuota({ subject: subject(), requestId: newRequestId(), estimatedCostMicros: '-5' }));
      expect(error).toMatchObject({ kind: 'validation', field: 'estimated_cost_micros', message: 'estimated_cost_micros: must be a non-negative integer' });
    });

    it('rejects a client label over 200 characters (edge truncates it)', async () => {
      const error = await rejection(client.record(recordOf(subject(), { clientLabel: 'x'.repeat(201) })));
      expect(error).toMatchObject({ kind: 'validation', field: 'client_label', message: 'client_label: must be at most 200 characters' });
    });

    it('rejects an unknown principal, listing the allowed ones', async () => {
      const error = await rejection(client.record(recordOf(subject(), { principal: 'root' })));
      expect(error).toMatchObject({ kind: 'validation', field: 'principal', message: 'principal: must be one of api_key, gateway_token, agent_secret' });
    });

    it("rejects a reservation that belongs to another request", async () => {
      const who = subject();
      const { reservationId } = await client.checkQuota({ subject: who, requestId: newRequestId(), estimatedCostMicros: '0' });
      const error = await rejection(client.record(recordOf(who, { reservationId })));
      expect(error).toMatchObject({ kind: 'validation', field: 'reservation_id' });
    });

    it('fails as internal for a plan the catalog lacks, without naming it to the caller', async () => {
      const error = await rejection(client.getQuota({ subject: subject({ planTier: 'platinum' }) }));
      expect(error).toMatchObject({ kind: 'internal', message: 'Internal error. Report it with the request id.' });
    });
  });

  it('keeps the counters of an organization in one hash for the month, expiring after it', async () => {
    const who = subject();
    await cycle(client, who);
    const key = ledgerKeys(prefix).counters({ organizationId: who.organizationId, period: currentPeriodKey() });
    const expiresAt = await redis.pexpiretime(key);
    expect(expiresAt).toBeGreaterThan(nextUtcMonth().getTime());
    expect(expiresAt).toBeLessThan(nextUtcMonth().getTime() + 7 * 24 * 3600 * 1000);
  });
});
