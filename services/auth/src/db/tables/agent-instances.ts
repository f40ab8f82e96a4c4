import type { ColumnType, Generated, Selectable } from 'kysely';

export const agentStatuses = ['running', 'provisioning', 'error'] as const;
export const serverTiers = ['starter', 'standard', 'performance', 'enterprise'] as const;
export const serverRegions = ['us-east', 'us-west', 'eu-central', 'eu-north', 'ap-south'] as const;
export const messengerTypes = ['web', 'telegram', 'discord', 'slack', 'whatsapp'] as const;
export const inferenceModes = ['managed', 'byok'] as const;
export type InferenceModeName = (typeof inferenceModes)[number];

/**
 * The agent billing record (docs/api.md#agent-api). The VM it once described is
 * retired; gateway authentication reads the record on every bound call.
 */
export interface AgentInstancesTable {
  id: Generated<string>;
  organization_id: string;
  /** The user whose agent this is (the agent API finds it from the session). */
  owner_user_id: string | null;
  status: (typeof agentStatuses)[number];
  server_ip: string | null;
  server_tier: (typeof serverTiers)[number];
  server_region: (typeof serverRegions)[number];
  ai_model: string;
  plan_tier: string;
  messages_limit: number;
  messenger_type: (typeof messengerTypes)[number];
  mode: InferenceModeName;
  /** The caller's provider key, AES-256-GCM (lib/cipher); null when managed. */
  provider_key_ciphertext: string | null;
  /** SHA-256 (hex) of the legacy per-agent gateway token, if one was issued. */
  gateway_token_hash: string | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}
export type AgentInstance = Selectable<AgentInstancesTable>;
