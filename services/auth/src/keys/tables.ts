import { isUndefinedTable, missingMigration } from '@gateway/lib/db';
import { API_KEYS_MIGRATION, AUTH_SCHEMA } from '../db';

/**
 * Runs key work so that a database lacking the keys tables answers
 * `unavailable` naming the missing migration (docs/api.md#authentication), never an empty
 * list or an internal error.
 */
export async function requireKeyTables<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUndefinedTable(error)) throw missingMigration(AUTH_SCHEMA, API_KEYS_MIGRATION, error);
    throw error;
  }
}
