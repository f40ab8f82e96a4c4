import type { UnaryHandlers } from '@gateway/lib/grpc';
import { BaselineReason, type PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { parseInput } from '@gateway/lib/validation';
import { z } from 'zod';
import { MAX_TOKENS, priceBookFromCatalog, priceRequest, type BaselineReasonName } from '@gateway/lib/pricing';
import type { PricingDeps } from '../deps';
import { listModels } from '../pricing/models';

/** int64 token counts arrive as decimal strings. */
const tokenCount = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of tokens, 0 or more')
  .transform((text) => BigInt(text))
  .refine((tokens) => tokens <= MAX_TOKENS, `must be at most ${MAX_TOKENS} tokens`);

const priceRequestSchema = z.object({
  servedModel: z.string().min(1, 'is required'),
  requestedModel: z.string(),
  planTier: z.string(),
  inputTokens: tokenCount,
  outputTokens: tokenCount,
  tier: z.string(),
});

const BASELINE_REASONS: Record<BaselineReasonName, BaselineReason> = {
  named: BaselineReason.BASELINE_REASON_NAMED,
  plan_ceiling: BaselineReason.BASELINE_REASON_PLAN_CEILING,
};

type PricingHandlers = UnaryHandlers<typeof PricingServiceService>;

export function pricingHandlers({ catalog }: PricingDeps): PricingHandlers {
  const models = listModels(catalog);
  const book = priceBookFromCatalog(catalog);
  return {
    price: async (request) => {
      const result = priceRequest(book, parseInput(priceRequestSchema, request));
      return {
        priced: result.priced,
        costMicros: result.costMicros.toString(),
        baseline: result.baseline && {
          model: result.baseline.model,
          reason: BASELINE_REASONS[result.baseline.reason],
          costMicros: result.baseline.costMicros.toString(),
        },
        savingsMicros: result.savingsMicros.toString(),
        savingsEstimatePct: result.savingsEstimatePct,
      };
    },
    listModels: async () => models,
  };
}
