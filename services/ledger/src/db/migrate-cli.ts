import { runMigrationCli } from '@gateway/lib/db/migrate-cli';
import { LEDGER_SCHEMA, ledgerMigrations } from './index';

/** Applies schema `ledger`'s pending migrations to DATABASE_URL (part of `npm run migrate`). */
runMigrationCli(LEDGER_SCHEMA, ledgerMigrations);
