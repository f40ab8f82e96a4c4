export { LEDGER_SCHEMA, type LedgerDatabase } from './schema';
export { LEDGER_TABLES_MIGRATION, ledgerMigrations } from './migrations';
