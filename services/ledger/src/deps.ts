import type { Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import type { LedgerDatabase } from './db/schema';
import type { AllowanceChanges } from './leases/changes';
import type { LeaseSettings } from './leases/lease';
import type { CatalogInForce } from './quota/catalog-in-force';
import type { QuotaStore } from './quota/store';
import type { RecordQueue } from './queue/queue';
import type { WriterSettings } from './writer/writer';

export interface LedgerSettings {
  /** How long a reservation holds its amount if Record never settles it. */
  reservationTtlSeconds: number;
  lease: LeaseSettings;
  writer: WriterSettings;
}

/**
 * Everything the ledger depends on, passed in: Postgres and Redis in the
 * stack, PGlite and the in-memory store, queue and announcements in the embedded mode.
 */
export interface LedgerDeps {
  db: Kysely<LedgerDatabase>;
  quota: QuotaStore;
  queue: RecordQueue;
  catalog: CatalogInForce;
  /** Where WatchLeases hears of allowance changes: Redis pub/sub in the stack, in-process in the embedded mode. */
  allowanceChanges: AllowanceChanges;
  logger: Logger;
  /** Anything left out takes its value from defaultLedgerSettings(). */
  settings?: { reservationTtlSeconds?: number; lease?: Partial<LeaseSettings>; writer?: Partial<WriterSettings> };
}
