import type { ServiceHandlers } from '@gateway/lib/grpc';
import type { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { gatewayMeter } from '@gateway/lib/metrics';
import { answerRoute, routingPolicyMessage } from '@gateway/lib/routing';
import type { RouterDeps } from '../deps';

type RouterHandlers = ServiceHandlers<typeof RouterServiceService>;

export function routerHandlers({ routing, logger }: RouterDeps): RouterHandlers {
  // The catalog bounds both labels: a few tiers, a few dozen models.
  const decisions = gatewayMeter().createCounter('router.decisions', {
    description: 'Requests routed by Route, by tier, the model that serves them, and whether it differs from the one requested.',
  });
  return {
    route: async (request) => {
      const answer = answerRoute(routing.current(), request);
      decisions.add(1, { tier: answer.tier, model: answer.model, routed: answer.routed });
      if (logger.isLevelEnabled('debug')) {
        logger.debug({ model: answer.model, tier: answer.tier, complexity: answer.complexity, reason: answer.reason }, 'routed');
      }
      return answer;
    },
    watchRoutingPolicy: async function* (_request, { signal }) {
      for await (const router of routing.watch(signal)) yield { routingPolicy: routingPolicyMessage(router.policy) };
    },
  };
}
