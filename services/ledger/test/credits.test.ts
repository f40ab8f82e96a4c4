import { randomUUID } from 'node:crypto';
import { loadCatalog } from '@gateway/lib/catalog';
import { migrateToLatest, type Database } from '@gateway/lib/db';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../../../test/support/databases';
import { grantCredits } from '../src/credits/grant';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '../src/db';
import { catalogInForce } from '../src/quota/catalog-in-force';
import { currentQuota } from '../src/quota/check';
import type { MeteredSubject } from '../src/quota/meter';
import { RedisQuotaStore } from '../src/quota/redis-store';
import { firstConnection } from '../src/redis/availability';
import { ledgerKeys } from '../src/redis/keys';
import { clearRedisPrefix, ledgerDatabase, uniquePrefix } from './support/ledger';

/** Purchasing credits: Postgres is the record, and a loaded period counts them at once. */
describe('grantCredits', () => {
  const prefix = uniquePrefix('credits');
  const catalog = loadCatalog();
  let database: TestDatabase;
  let db: Database<LedgerDatabase>;
  let redis: Redis;
  let quota: RedisQuotaStore;

  const byokSubject = (): MeteredSubject => ({
    organizationId: randomUUID(),
    agentId: null,
    planTier: 'free',
    byok: true,
    messagesLimit: 0n,
    enforce: true,
  });
  const quotaOf = (subject: MeteredSubject) => currentQuota({ db: db.db, quota, catalog: catalogInForce(catalog) }, subject);

  beforeAll(async () => {
    database = await createTestDatabase('ledger_credits');
    db = ledgerDatabase(database.url);
    await migrateToLatest(db.db, LEDGER_SCHEMA, ledgerMigrations);
    redis = createRedis(testRedisUrl());
    await firstConnection(redis, 5000);
    quota = new RedisQuotaStore(redis, ledgerKeys(prefix));
  });

  afterAll(async () => {
    redis.disconnect();
    await clearRedisPrefix(testRedisUrl(), prefix);
    await db.destroy();
    await database.drop();
  });

  it('adds the credits to a loaded period at once', async () => {
    const subject = byokSubject();
    await expect(quotaOf(subject)).resolves.toMatchObject({ limit: 1000n, credits: 0n, remaining: 1000n });
    const granted = await grantCredits({ db: db.db, quota }, { organizationId: subject.organizationId, amount: 50 });
    expect(granted.countedNow).toBe(true);
    await expect(quotaOf(subject)).resolves.toMatchObject({ credits: 50n, remaining: 1050n });
    const row = await db.db.selectFrom('credits').selectAll().where('id', '=', granted.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ organization_id: subject.organizationId, amount: 50, remaining: 50, expires_at: null });
  });

  it('leaves an unloaded period to read them from Postgres when it loads', async () => {
    const subject = byokSubject();
    const expiresAt = new Date(Date.now() + 30 * 24 * 3600 * 1000);
    const granted = await grantCredits({ db: db.db, quota }, { organizationId: subject.organizationId, amount: 7, expiresAt });
    expect(granted.countedNow).toBe(false);
    await expect(quotaOf(subject)).resolves.toMatchObject({ credits: 7n, remaining: 1007n });
  });

  it('rejects a grant that is not a positive whole number, or already expired', async () => {
    const organizationId = randomUUID();
    await expect(grantCredits({ db: db.db, quota }, { organizationId, amount: 0 })).rejects.toMatchObject({ kind: 'validation', field: 'amount' });
    await expect(grantCredits({ db: db.db, quota }, { organizationId, amount: 1.5 })).rejects.toMatchObject({ kind: 'validation', field: 'amount' });
    await expect(grantCredits({ db: db.db, quota }, { organizationId: 'acme', amount: 1 })).rejects.toMatchObject({
      kind: 'validation',
      field: 'organizationId',
    });
    await expect(
      grantCredits({ db: db.db, quota }, { organizationId, amount: 1, expiresAt: new Date(Date.now() - 1000) }),
    ).rejects.toMatchObject({ kind: 'validation', field: 'expiresAt' });
    const rows = await db.db.selectFrom('credits').select('id').where('organization_id', '=', organizationId).execute();
    expect(rows).toEqual([]);
  });
});
