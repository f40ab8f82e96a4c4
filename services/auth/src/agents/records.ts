import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AgentRecord } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AuthDatabase } from '../db/schema';
import type { AgentInstance } from '../db/tables/agent-instances';
import { agentAttribution } from './attribution';

/** Every column the agent API may see: never the provider key or the gateway token hash. */
export const AGENT_RECORD_COLUMNS = [
  'agent_instances.id',
  'agent_instances.organization_id',
  'agent_instances.owner_user_id',
  'agent_instances.status',
  'agent_instances.server_ip',
  'agent_instances.server_tier',
  'agent_instances.server_region',
  'agent_instances.ai_model',
  'agent_instances.plan_tier',
  'agent_instances.messages_limit',
  'agent_instances.messenger_type',
  'agent_instances.mode',
  'agent_instances.created_at',
  'agent_instances.updated_at',
] as const;

export type AgentRecordRow = Omit<AgentInstance, 'provider_key_ciphertext' | 'gateway_token_hash'>;

export function toAgentRecordMessage(row: AgentRecordRow): AgentRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    ownerUserId: row.owner_user_id ?? '',
    status: row.status,
    serverIp: row.server_ip ?? '',
    serverTier: row.server_tier,
    serverRegion: row.server_region,
    aiModel: row.ai_model,
    planTier: row.plan_tier,
    messagesLimit: String(row.messages_limit),
    messengerType: row.messenger_type,
    mode: agentAttribution({ ...row, provider_key_ciphertext: null }).mode,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const NO_AGENT_MESSAGE = 'No agent record belongs to you. An administrator creates one (npm run admin -- create-agent --owner-email ...).';

/**
 * The agent record of a signed-in user: one they own in an organization
 * they still belong to (a member who left loses it with the membership).
 * Without an id, the most recently created one; an id that is not theirs is
 * `not_found`, exactly like one that does not exist.
 */
export async function findUserAgent(
  db: Kysely<AuthDatabase>,
  userId: string,
  agentId: string | null,
  options: { lock?: boolean } = {},
): Promise<AgentRecordRow> {
  let query = db
    .selectFrom('agent_instances')
    .innerJoin('memberships', (join) =>
      join.onRef('memberships.organization_id', '=', 'agent_instances.organization_id').on('memberships.user_id', '=', userId),
    )
    .select(AGENT_RECORD_COLUMNS)
    .where('agent_instances.owner_user_id', '=', userId);
  if (agentId !== null) query = query.where('agent_instances.id', '=', agentId);
  if (options.lock) query = query.forUpdate('agent_instances');
  const row = await query.orderBy('agent_instances.created_at', 'desc').orderBy('agent_instances.id', 'desc').limit(1).executeTakeFirst();
  if (!row) {
    throw agentId === null
      ? new DomainError('not_found', NO_AGENT_MESSAGE)
      : new DomainError('not_found', 'Agent record not found.', { field: 'agent_id' });
  }
  return row;
}
