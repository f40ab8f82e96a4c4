import type { UnaryHandlers } from '@gateway/lib/grpc';
import type { RouterServiceService } from '@gateway/proto/gen/gateway/router/v1/router';
import { parseInput } from '@gateway/lib/validation';
import { gatewayMeter } from '@gateway/lib/metrics';
import { z } from 'zod';
import type { RouterDeps } from '../deps';
import { createRouter } from '@gateway/lib/routing';

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

type RouterHandlers = UnaryHandlers<typeof RouterServiceService>;

export function routerHandlers({ catalog, logger }: RouterDeps): RouterHandlers {
  const router = createRouter(catalog);
  // The catalog bounds both labels: a few tiers, a few dozen models.
  const decisions = gatewayMeter().createCounter('router.decisions', {
    description: 'Requests routed, by tier, the model that serves them, and whether it differs from the one requested.',
  });
  return {
    route: async (request) => {
      const fields = parseInput(routeRequestSchema, request);
      const decision = router.route({ ...fields, messages: request.messages });
      decisions.add(1, { tier: decision.tier, model: decision.model.id, routed: decision.routed });
      if (logger.isLevelEnabled('debug')) {
        logger.debug({ model: decision.model.id, tier: decision.tier, complexity: decision.complexity, reason: decision.reason }, 'routed');
      }
      return {
        model: decision.model.id,
        provider: decision.model.provider,
        tier: decision.tier,
        complexity: decision.complexity,
        routed: decision.routed,
        droppedParams: decision.droppedParams,
        signals: decision.signals,
        reason: decision.reason,
      };
    },
  };
}
