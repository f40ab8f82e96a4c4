import { loadCatalog } from '@gateway/lib/catalog';
import { connectDatabase, migrateToLatest } from '@gateway/lib/db';
import { DomainError } from '@gateway/lib/errors';
import { createRedis } from '@gateway/lib/redis';
import { setSpendAllowance } from './allowances/set';
import { grantCredits, type CreditGrant, type GrantedCredits } from './credits/grant';
import { listCredits } from './credits/list';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from './db';
import type { CreditRow } from './db/tables/credits';
import { catalogInForce } from './quota/catalog-in-force';
import { currentQuota } from './quota/check';
import type { MeteredSubject } from './quota/meter';
import { RedisQuotaStore } from './quota/redis-store';
import type { QuotaSnapshot } from './quota/state';
import { firstConnection } from './redis/availability';
import { ledgerKeys } from './redis/keys';

export type { CreditRow } from './db/tables/credits';
export type { QuotaSnapshot } from './quota/state';
export { DEFAULT_KEY_PREFIX } from './redis/keys';

/**
 * The ledger as an operator's command reaches it: the same Postgres record
 * and Redis counters a running ledger uses (same REDIS_KEY_PREFIX), so a
 * grant counts on the next request and a quota reads what the gateway sees.
 */
export interface LedgerAdmin {
  grantCredits(grant: CreditGrant): Promise<GrantedCredits>;
  listCredits(organizationId: string): Promise<CreditRow[]>;
  quota(subject: MeteredSubject): Promise<QuotaSnapshot>;
  /** The organization's own spend allowance (micro-dollars), or null for its plan's. */
  setSpendAllowance(organizationId: string, micros: bigint | null): Promise<{ countedNow: boolean }>;
  close(): Promise<void>;
}

const REDIS_CONNECT_TIMEOUT_MS = 5000;

export async function openLedgerAdmin({ databaseUrl, redisUrl, keyPrefix }: { databaseUrl: string; redisUrl: string; keyPrefix: string }): Promise<LedgerAdmin> {
  const database = connectDatabase<LedgerDatabase>({ kind: 'postgres', url: databaseUrl, poolSize: 2 }, LEDGER_SCHEMA);
  const redis = createRedis(redisUrl);
  const close = async () => {
    redis.disconnect();
    await database.destroy();
  };
  try {
    await migrateToLatest(database.db, LEDGER_SCHEMA, ledgerMigrations);
    if (!(await firstConnection(redis, REDIS_CONNECT_TIMEOUT_MS))) throw new DomainError('unavailable', `Redis at REDIS_URL did not answer within ${REDIS_CONNECT_TIMEOUT_MS} ms.`);
  } catch (error) {
    await close();
    throw error;
  }
  const deps = { db: database.db, quota: new RedisQuotaStore(redis, ledgerKeys(keyPrefix)), catalog: catalogInForce(loadCatalog()) };
  return {
    grantCredits: (grant) => grantCredits(deps, grant),
    listCredits: (organizationId) => listCredits(deps.db, organizationId),
    quota: (subject) => currentQuota(deps, subject),
    setSpendAllowance: (organizationId, micros) => setSpendAllowance(deps, organizationId, micros),
    close,
  };
}
