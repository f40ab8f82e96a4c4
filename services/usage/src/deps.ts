import type { Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import type { TracesDatabase } from './db/traces';

export interface UsageSettings {
  /** Requests a report reads at most (SCAN_CAP). */
  scanCap: number;
  /** Longest a report's query may run. */
  queryTimeoutMs: number;
  /** work_mem of a report's transaction, in MB. */
  workMemMb: number;
}

/** Everything the usage service depends on: the ledger's schema (Postgres, or PGlite in the embedded mode). */
export interface UsageDeps {
  db: Kysely<TracesDatabase>;
  settings: UsageSettings;
  logger: Logger;
}
