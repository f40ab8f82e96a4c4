import { DomainError } from '@gateway/lib/errors';
import { isUndefinedTable, missingMigration } from '@gateway/lib/db';
import { LEDGER_TABLES_MIGRATION } from './migrations';
import { LEDGER_SCHEMA } from './schema';

/** A failed ledger query as the caller should see it: a missing migration is named, anything else is unavailability. */
export function databaseFailure(error: unknown, migration = LEDGER_TABLES_MIGRATION): DomainError {
  if (error instanceof DomainError) return error;
  if (isUndefinedTable(error)) return missingMigration(LEDGER_SCHEMA, migration, error);
  return new DomainError('unavailable', 'The ledger database is unavailable.', { cause: error });
}
