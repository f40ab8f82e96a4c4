import type { PromiseClient } from '@gateway/lib/grpc';
import type { RecommendModelResponse } from '@gateway/proto/gen/gateway/agent/v1/agent';
import { InferenceMode, type AgentRecord } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { LedgerServiceService, QuotaState, Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import type { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { chatBody, promptTokens, routeRequestFor, userTurn } from '../chat/conversation';
import { AGENT_TOOLS } from '../chat/tools';

/**
 * Who the ledger meters for the agent's own traffic: the subject edge builds
 * for the platform agent secret naming this record (legacy credentials are
 * measured, never blocked).
 */
export function agentSubject(agent: AgentRecord): Subject {
  return {
    organizationId: agent.organizationId,
    agentId: agent.id,
    planTier: agent.planTier,
    byok: agent.mode === InferenceMode.INFERENCE_MODE_BYOK,
    messagesLimit: agent.messagesLimit,
    enforce: false,
  };
}

/** The current period's usage of the meter the agent's traffic counts on, reserving nothing. */
export async function periodQuota(ledger: PromiseClient<typeof LedgerServiceService>, agent: AgentRecord): Promise<QuotaState | undefined> {
  const { quota } = await ledger.getQuota({ subject: agentSubject(agent) });
  return quota;
}

export interface RecommendDeps {
  router: PromiseClient<typeof RouterServiceService>;
  pricing: PromiseClient<typeof PricingServiceService>;
  replyMaxTokens: number;
}

/**
 * What the gateway would do with the message: the request a chat in a new
 * session sends (system prompt, the message, the tools, the reply cap),
 * routed by the router exactly as edge routes it, and priced by pricing for
 * its prompt tokens (o200k_base, OpenAI's recipe) and the reply cap as
 * output: an upper bound, since a reply stops at the cap.
 */
export async function recommendModel(deps: RecommendDeps, agent: AgentRecord, message: string): Promise<RecommendModelResponse> {
  const body = chatBody({ agent, messages: [userTurn(message)], tools: AGENT_TOOLS, replyMaxTokens: deps.replyMaxTokens });
  const route = await deps.router.route(routeRequestFor(body, agent));
  const inputTokens = promptTokens(body);
  const outputTokens = deps.replyMaxTokens;
  const price = await deps.pricing.price({
    servedModel: route.model,
    requestedModel: body.model,
    planTier: agent.planTier,
    tier: route.tier,
    inputTokens: String(inputTokens),
    outputTokens: String(outputTokens),
  });
  return {
    model: route.model,
    provider: route.provider,
    tier: route.tier,
    complexity: route.complexity,
    routed: route.routed,
    reason: route.reason,
    signals: route.signals,
    inputTokens: String(inputTokens),
    outputTokens: String(outputTokens),
    priced: price.priced,
    costMicros: price.costMicros,
    baseline: price.baseline,
    savingsMicros: price.savingsMicros,
    requestedModel: body.model,
  };
}
