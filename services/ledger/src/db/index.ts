export { LEDGER_SCHEMA, type LedgerDatabase } from './schema';
export { LEDGER_TABLES_MIGRATION, USAGE_READER_ROLE, USAGE_READS_MIGRATION, ledgerMigrations } from './migrations';
