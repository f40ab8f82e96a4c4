import type { Kysely } from 'kysely';
import { encryptSecret } from '@gateway/lib/cipher';
import type { AuthDatabase } from '../db/schema';
import type { AgentInstancesTable, messengerTypes, serverRegions, serverTiers } from '../db/tables/agent-instances';
import { findUserAgent, type AgentRecordRow } from './records';

export interface AgentSettingsChange {
  aiModel?: string;
  messengerType?: (typeof messengerTypes)[number];
  serverTier?: (typeof serverTiers)[number];
  serverRegion?: (typeof serverRegions)[number];
  /** The caller's own provider key: the record becomes BYOK. */
  providerKey?: string;
}

type PlainColumn = 'ai_model' | 'messenger_type' | 'server_tier' | 'server_region';
type PlainSettings = Pick<AgentInstancesTable, PlainColumn>;

/** The settings the agent API may change, by column. */
function plainSettings(change: AgentSettingsChange): Partial<PlainSettings> {
  return {
    ...(change.aiModel === undefined ? {} : { ai_model: change.aiModel }),
    ...(change.messengerType === undefined ? {} : { messenger_type: change.messengerType }),
    ...(change.serverTier === undefined ? {} : { server_tier: change.serverTier }),
    ...(change.serverRegion === undefined ? {} : { server_region: change.serverRegion }),
  };
}

/**
 * Applies a user's change to their agent record, touching only the given
 * columns. A provider key is encrypted exactly as the admin command does
 * (AES-256-GCM under SECRETS_KEY, bound to the record's id) and makes the
 * record BYOK. Answers the record as it is now and the columns whose value
 * changed (a key that was given always counts as changed).
 */
export async function updateAgentSettings(
  db: Kysely<AuthDatabase>,
  secretsKey: Buffer,
  userId: string,
  agentId: string,
  change: AgentSettingsChange,
): Promise<{ agent: AgentRecordRow; changed: string[] }> {
  return db.transaction().execute(async (trx) => {
    // Locked, so that `changed` describes this change even when two race.
    const current = await findUserAgent(trx, userId, agentId, { lock: true });
    const settings = plainSettings(change);
    const changed: string[] = (Object.keys(settings) as PlainColumn[]).filter((column) => current[column] !== settings[column]);
    const byok =
      change.providerKey === undefined
        ? {}
        : { mode: 'byok' as const, provider_key_ciphertext: encryptSecret(change.providerKey, secretsKey, current.id) };
    if (change.providerKey !== undefined) changed.push(...(current.mode === 'byok' ? [] : ['mode']), 'provider_key');
    // Nothing to write: the record, and when it last changed, stay as they are.
    if (changed.length === 0) return { agent: current, changed };

    await trx
      .updateTable('agent_instances')
      .set({ ...settings, ...byok, updated_at: new Date() })
      .where('id', '=', current.id)
      .execute();
    return { agent: await findUserAgent(trx, userId, agentId), changed };
  });
}
