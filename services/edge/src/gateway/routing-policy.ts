import type { PromiseClient, ReadinessProbe } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import { holdLatest, type Held, type Resubscribe } from '@gateway/lib/published';
import { answerRoute, countRouteDecision, createRouter, routingPolicyFromMessage, type Router } from '@gateway/lib/routing';
import type { RouterServiceService, RouteRequest, RouteResponse } from '@gateway/proto/gen/gateway/router/v1/router';

/** The router's latest routing policy, bound to lib's routing code; until one arrives, edge asks `Route`. */
export type HeldRoutingPolicy = Held<Router>;

/**
 * Subscribes to the router's `WatchRoutingPolicy` and keeps the latest
 * version. The policy held stays in use while the router is away: it does
 * not change while nobody publishes it. A policy that cannot be routed (tiers
 * other than the scored ones) is refused like one that fails its version.
 */
export function holdRoutingPolicy(router: PromiseClient<typeof RouterServiceService>, logger: Logger, resubscribe?: Resubscribe): HeldRoutingPolicy {
  return holdLatest(
    {
      kind: 'routing_policy',
      subscribe: (signal) => router.watchRoutingPolicy({}, { signal }),
      accept: ({ routingPolicy }) => createRouter(routingPolicyFromMessage(routingPolicy)),
      versionOf: (held) => held.policy.version,
    },
    logger,
    resubscribe,
  );
}

export interface RoutingBackends {
  router: PromiseClient<typeof RouterServiceService>;
  routingPolicy?: HeldRoutingPolicy;
}

/**
 * Routes with the policy held and lib's routing code, which answers exactly
 * as `Route` would (docs/decisions.md#the-routing-policy-edge-holds); with no
 * policy yet, asks `Route`. Its errors are Route's, through the same mapping.
 * A decision made here is counted here, as the router counts its own.
 */
export async function routeCall({ router, routingPolicy }: RoutingBackends, request: RouteRequest): Promise<RouteResponse> {
  const held = routingPolicy?.current();
  if (!held) return router.route(request);
  const answer = answerRoute(held, request);
  countRouteDecision(answer);
  return answer;
}

/** Routing is required to be ready: a policy held is enough, the router serving `Route` is the other way. */
export function routingReadiness(routerProbe: ReadinessProbe, routingPolicy: HeldRoutingPolicy): ReadinessProbe {
  return { name: routerProbe.name, isServing: async () => routingPolicy.current() !== undefined || routerProbe.isServing() };
}
