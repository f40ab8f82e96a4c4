import type { Kysely } from 'kysely';
import type { OrganizationAgent } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDatabase } from '../db/schema';
import { authorizeKeyAction, type KeyActor } from '../keys/access';
import { AGENT_RECORD_COLUMNS, toAgentRecordMessage } from './records';

/**
 * The organization's agent records, newest first, for the Console's picker
 * of the record a new key is bound to. Any member may read them, as any
 * member may list the keys that name them; a non-member gets the same
 * `not_found` as on the key routes.
 */
export async function listOrganizationAgents(db: Kysely<AuthDatabase>, actor: KeyActor): Promise<OrganizationAgent[]> {
  await authorizeKeyAction(db, actor, 'list');
  const rows = await db
    .selectFrom('agent_instances')
    .leftJoin('users', 'users.id', 'agent_instances.owner_user_id')
    .select([...AGENT_RECORD_COLUMNS, 'users.email as owner_email'])
    .where('agent_instances.organization_id', '=', actor.organizationId)
    .orderBy('agent_instances.created_at', 'desc')
    .orderBy('agent_instances.id', 'desc')
    .execute();
  return rows.map(({ owner_email, ...row }) => ({ agent: toAgentRecordMessage(row), ownerEmail: owner_email ?? '' }));
}
