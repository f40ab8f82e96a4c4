import type { AllowancesTable } from './tables/allowances';
import type { CreditsTable } from './tables/credits';
import type { DeadLettersTable } from './tables/dead-letters';
import type { LedgerEntriesTable } from './tables/ledger-entries';
import type { TracesTable } from './tables/traces';

/** Postgres schema owned by the ledger service (the usage service reads it). */
export const LEDGER_SCHEMA = 'ledger';

export interface LedgerDatabase {
  traces: TracesTable;
  ledger_entries: LedgerEntriesTable;
  credits: CreditsTable;
  dead_letters: DeadLettersTable;
  allowances: AllowancesTable;
}
