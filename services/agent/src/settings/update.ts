import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { SettingChange } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { InferenceMode, type AgentRecord, type AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { AgentDatabase } from '../db/schema';
import { writeLog } from '../logs/logs';

export interface SettingsInput {
  aiModel?: string | undefined;
  messengerType?: string | undefined;
  serverTier?: string | undefined;
  serverRegion?: string | undefined;
  /** Never logged, never returned. */
  aiApiKey?: string | undefined;
}

export interface SettingsDeps {
  db: Kysely<AgentDatabase>;
  auth: PromiseClient<typeof AuthServiceService>;
  pricing: PromiseClient<typeof PricingServiceService>;
}

/** `auto`, or a model of the catalog (pricing's list, the same the gateway routes within). */
async function requireKnownModel(pricing: SettingsDeps['pricing'], model: string): Promise<void> {
  if (model === 'auto') return;
  const { models } = await pricing.listModels({});
  const ids = models.map(({ id }) => id);
  if (!ids.includes(model)) {
    throw new DomainError('validation', `aiModel: "${model}" is not in the model catalog; use auto or one of ${ids.join(', ')}`, {
      field: 'aiModel',
    });
  }
}

const keyState = (agent: AgentRecord) => (agent.mode === InferenceMode.INFERENCE_MODE_BYOK ? 'set' : 'not set');
const modeName = (agent: AgentRecord) => (agent.mode === InferenceMode.INFERENCE_MODE_BYOK ? 'byok' : 'managed');

/** Each changed column of the record, as the request names it, with its value before and after. */
const CHANGES: Record<string, (before: AgentRecord, after: AgentRecord) => SettingChange> = {
  ai_model: (before, after) => ({ field: 'aiModel', previous: before.aiModel, current: after.aiModel }),
  messenger_type: (before, after) => ({ field: 'messengerType', previous: before.messengerType, current: after.messengerType }),
  server_tier: (before, after) => ({ field: 'serverTier', previous: before.serverTier, current: after.serverTier }),
  server_region: (before, after) => ({ field: 'serverRegion', previous: before.serverRegion, current: after.serverRegion }),
  mode: (before, after) => ({ field: 'mode', previous: modeName(before), current: modeName(after) }),
  provider_key: (before) => ({ field: 'aiApiKey', previous: keyState(before), current: 'set' }),
};

/**
 * Records the settings on the agent record (auth owns it). The rebuild these settings
 * once triggered has no machine behind it any more: nothing is rebuilt, the request
 * is written to the agent's log, and the answer says what changed.
 */
export async function updateSettings(
  deps: SettingsDeps,
  agent: AgentRecord,
  userId: string,
  input: SettingsInput,
): Promise<{ agent: AgentRecord; changes: SettingChange[] }> {
  if (input.aiModel !== undefined) await requireKnownModel(deps.pricing, input.aiModel);
  const response = await deps.auth.updateAgentSettings({
    userId,
    agentId: agent.id,
    aiModel: input.aiModel,
    messengerType: input.messengerType,
    serverTier: input.serverTier,
    serverRegion: input.serverRegion,
    providerKey: input.aiApiKey,
  });
  const after = response.agent;
  if (!after) throw new DomainError('internal', 'Internal error. Report it with the request id.', { internalReason: 'auth answered without a record' });
  const changes = response.changed.flatMap((column) => CHANGES[column]?.(agent, after) ?? []);
  const requested = Object.entries(input).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  await writeLog(deps.db, agent.id, 'settings_update_requested', {
    requested,
    // A key change shows only as `set`: the entries hold no key.
    changes,
    rebuild: 'none: no machine stands behind the agent record',
  });
  return { agent: after, changes };
}
