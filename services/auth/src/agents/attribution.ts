import { InferenceMode } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AgentInstance } from '../db/tables/agent-instances';

/** What a credential tied to an agent record inherits from it (docs/api.md#api-keys). */
export interface AgentAttribution {
  agentId: string;
  model: string;
  mode: InferenceMode;
  planTier: string;
  providerKeyCiphertext: string;
  /** int64 on the wire: a decimal string. */
  messagesLimit: string;
}

export type AttributedAgent = Pick<
  AgentInstance,
  'id' | 'ai_model' | 'mode' | 'plan_tier' | 'provider_key_ciphertext' | 'messages_limit'
>;

const modes: Record<AgentInstance['mode'], InferenceMode> = {
  managed: InferenceMode.INFERENCE_MODE_MANAGED,
  byok: InferenceMode.INFERENCE_MODE_BYOK,
};

export function agentAttribution(agent: AttributedAgent): AgentAttribution {
  return {
    agentId: agent.id,
    model: agent.ai_model,
    mode: modes[agent.mode],
    planTier: agent.plan_tier,
    // Only BYOK traffic needs the key; managed calls never carry it.
    providerKeyCiphertext: agent.mode === 'byok' ? (agent.provider_key_ciphertext ?? '') : '',
    messagesLimit: String(agent.messages_limit),
  };
}

/** An organization-level credential: managed inference, model `auto`, the organization's plan. */
export function organizationAttribution(organizationPlanTier: string): AgentAttribution {
  return {
    agentId: '',
    model: 'auto',
    mode: InferenceMode.INFERENCE_MODE_MANAGED,
    planTier: organizationPlanTier,
    providerKeyCiphertext: '',
    messagesLimit: '0',
  };
}
