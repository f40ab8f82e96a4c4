import { DomainError } from '@gateway/lib/errors';
import { isUndefinedTable, missingMigration } from '@gateway/lib/db';
import { latestAgentMigration } from './migrations';
import { AGENT_SCHEMA } from './schema';

/**
 * Runs database work so that a database lacking the agent's tables answers
 * `unavailable` naming the migration to run (docs/api.md#authentication), never an empty list.
 */
export async function requireAgentTables<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (isUndefinedTable(error)) throw missingMigration(AGENT_SCHEMA, latestAgentMigration(), error);
    throw error;
  }
}
