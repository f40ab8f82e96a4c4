import type { RouteRequest, RouteResponse } from '@gateway/proto/gen/gateway/router/v1/router';
import { z } from 'zod';
import { parseInput } from '../validation';
import type { Router } from './router';

const count = z.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 or more');

/**
 * The scalar fields of a RouteRequest. The messages are typed by the proto
 * decoder and read as they are: re-validating each one would add work that
 * grows with the conversation, and the scorer reads a bounded part anyway.
 */
const routeRequestSchema = z.object({
  requestedModel: z.string(),
  credentialModel: z.string(),
  planTier: z.string(),
  toolCount: count,
  maxOutputTokens: count,
  parameters: z.array(z.string()),
});

/**
 * Route's answer to a request: the router's `Route` handler and edge routing
 * with the policy it holds both answer through this, so the two cannot differ
 * (the same checks, the same errors, the same response).
 */
export function answerRoute(router: Router, request: RouteRequest): RouteResponse {
  const fields = parseInput(routeRequestSchema, request);
  // Object.assign rather than a spread given a new key: on Node 20's V8 such an object outlives the young generation (docs/performance.md).
  const decision = router.route(Object.assign({}, fields, { messages: request.messages }));
  return {
    model: decision.model.id,
    provider: decision.model.provider,
    tier: decision.tier,
    complexity: decision.complexity,
    routed: decision.routed,
    droppedParams: decision.droppedParams,
    signals: decision.signals,
    reason: decision.reason,
    routingPolicyVersion: router.policy.version,
  };
}
