import type { RouteRequest, RouteResponse } from '@gateway/proto/gen/gateway/router/v1/router';
import { DomainError } from '../../src/errors';
import { SCORING_EXAMPLES } from '../../src/routing/scoring/scoring-examples';

/** Named models of the shipped catalog at every tier, one that is not in it, none, and `auto`. */
const REQUESTED = ['auto', 'gpt-4.1-nano', 'gpt-4.1', 'o3', 'claude-opus-4-1', 'sim-reasoning', 'gpt-9', ''];
/** A bound agent record's model: none, one in the catalog, one it no longer lists. */
const CREDENTIAL = ['auto', 'o3', 'gemini-2.5-flash', 'retired-model'];
const PLANS = ['free', 'starter', 'pro', 'enterprise', 'legacy_basic', 'legacy_plus', 'simulated', 'platinum'];
const PARAMETERS = [
  ['model', 'messages'],
  ['model', 'messages', 'temperature', 'max_tokens', 'stream'],
  ['model', 'messages', 'logit_bias', 'top_p', 'logprobs', 'tools', 'temperature'],
];

/**
 * A spread of Route requests over the shipped catalog: every worked example
 * under every plan (and one the catalog lacks), with the requested model,
 * the bound model and the parameters turning with them, every requested
 * model under every plan, and requests Route refuses.
 */
export function routeRequestSpread(): RouteRequest[] {
  const requests: RouteRequest[] = [];
  const pick = <T>(list: readonly T[], index: number): T => list[index % list.length] as T;
  SCORING_EXAMPLES.forEach((example, exampleIndex) => {
    PLANS.forEach((planTier, planIndex) => {
      const turn = exampleIndex + planIndex;
      requests.push({
        ...example.input,
        messages: [...example.input.messages],
        requestedModel: pick(REQUESTED, turn),
        credentialModel: pick(CREDENTIAL, turn),
        planTier,
        parameters: pick(PARAMETERS, turn),
      });
    });
  });
  const hi = { messages: [{ role: 'user', content: 'hi' }], toolCount: 0, maxOutputTokens: 0, credentialModel: 'auto', parameters: ['model', 'messages', 'temperature'] };
  for (const requestedModel of REQUESTED) for (const planTier of PLANS) requests.push({ ...hi, requestedModel, planTier });
  requests.push({ ...hi, requestedModel: 'auto', planTier: 'pro', toolCount: -1 }, { ...hi, requestedModel: 'auto', planTier: 'pro', maxOutputTokens: -5 });
  return requests;
}

/** A route's outcome as its caller sees it: the answer, or the error's kind, public message and field. */
export type RouteOutcome = { answer: RouteResponse } | { error: Pick<DomainError, 'kind' | 'message' | 'field'> };

export async function outcomeOf(route: () => RouteResponse | Promise<RouteResponse>): Promise<RouteOutcome> {
  try {
    return { answer: await route() };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { error: { kind: error.kind, message: error.message, field: error.field } };
  }
}
