import type { MigrationIndex } from '@gateway/lib/db';
import * as ledger from './0001_ledger';

/** Every migration of schema `ledger`, in order. Released entries never change. */
export const ledgerMigrations: MigrationIndex = {
  '0001_ledger': ledger,
};

/** The migration that creates the ledger's tables, named in the 503 when it is missing. */
export const LEDGER_TABLES_MIGRATION = '0001_ledger';
