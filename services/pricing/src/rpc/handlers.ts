import type { ServiceHandlers } from '@gateway/lib/grpc';
import { BaselineReason, type PricingServiceService } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { parseInput } from '@gateway/lib/validation';
import { z } from 'zod';
import { MAX_TOKENS, priceListMessage, priceRequest, type BaselineReasonName } from '@gateway/lib/pricing';
import type { PricingDeps } from '../deps';

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

type PricingHandlers = ServiceHandlers<typeof PricingServiceService>;

export function pricingHandlers({ prices }: PricingDeps): PricingHandlers {
  return {
    price: async (request) => {
      const { book } = prices.current();
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
        priceListVersion: book.version,
      };
    },
    listModels: async () => prices.current().models,
    watchPriceList: async function* (_request, { signal }) {
      for await (const { book } of prices.watch(signal)) yield { priceList: priceListMessage(book) };
    },
  };
}
