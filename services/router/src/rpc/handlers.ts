import type { ServiceHandlers } from '@gateway/lib/grpc';
import type { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { answerRoute, countRouteDecision, routingPolicyMessage } from '@gateway/lib/routing';
import type { RouterDeps } from '../deps';

type RouterHandlers = ServiceHandlers<typeof RouterServiceService>;

export function routerHandlers({ routing, logger }: RouterDeps): RouterHandlers {
  return {
    route: async (request) => {
      const answer = answerRoute(routing.current(), request);
      countRouteDecision(answer);
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
