import type { ChatBodyShape } from '@gateway/lib/catalog';
import type { Principal } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { RouteRequest, RouteResponse } from '@gateway/proto/gen/gateway/router/v1/router';
import type { RouteFacts } from './headers';
import { maxOutputTokens, messageText, type ChatCompletionBody } from './request';

/** What the router scores: the conversation's text and the request's shape, not its raw bytes. */
export function routeRequestOf(body: ChatCompletionBody, principal: Principal): RouteRequest {
  return {
    requestedModel: body.model,
    credentialModel: principal.model,
    planTier: principal.planTier,
    messages: body.messages.map((message) => ({ role: message.role, content: messageText(message.content) })),
    toolCount: body.tools?.length ?? 0,
    maxOutputTokens: maxOutputTokens(body),
    parameters: Object.keys(body),
  };
}

export function routeFactsOf(route: RouteResponse): RouteFacts {
  return {
    model: route.model,
    tier: route.tier,
    complexity: route.complexity,
    routed: route.routed,
    droppedParams: route.droppedParams,
    routingPolicyVersion: route.routingPolicyVersion,
  };
}

/** The body sent upstream: the served model, without the parameters it would reject. */
export function upstreamBodyOf(body: ChatCompletionBody, route: RouteResponse): ChatBodyShape & Record<string, unknown> {
  const upstream: ChatBodyShape & Record<string, unknown> = { ...body, model: route.model };
  for (const parameter of route.droppedParams) delete upstream[parameter];
  return upstream;
}
