import type { Counter } from '@opentelemetry/api';
import type { RouteResponse } from '@gateway/proto/gen/gateway/router/v1/router';
import { gatewayMeter } from '../metrics';

let decisions: Counter | undefined;

/**
 * Counts one routing decision in the process that made it: the router for
 * `Route`, edge for what it routes with the policy it holds. Created at the
 * first decision, once telemetry has started. The catalog bounds the labels:
 * a few tiers, a few dozen models.
 */
export function countRouteDecision({ tier, model, routed }: RouteResponse): void {
  decisions ??= gatewayMeter().createCounter('router.decisions', {
    description: 'Requests routed, by tier, the model that serves them, and whether it differs from the one requested.',
  });
  decisions.add(1, { tier, model, routed });
}
