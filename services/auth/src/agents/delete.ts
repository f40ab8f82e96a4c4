import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AuthDatabase } from '../db/schema';

/**
 * Deletes an agent record of an organization. Keys bound to it lose the
 * binding (foreign key `on delete set null`) and keep working as
 * organization-level keys (docs/api.md#api-keys); past traces and ledger rows keep their
 * own references.
 */
export async function deleteAgentInstance(db: Kysely<AuthDatabase>, organizationId: string, agentId: string): Promise<void> {
  const result = await db
    .deleteFrom('agent_instances')
    .where('id', '=', agentId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) {
    throw new DomainError('not_found', 'Agent record not found in this organization.', { field: 'agent_id' });
  }
}
