import { z } from 'zod';

/** Token usage as the upstream reported it; what pricing and the ledger need. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

const tokenCount = z.number().int().nonnegative();
const usageSchema = z.looseObject({
  prompt_tokens: tokenCount,
  completion_tokens: tokenCount,
  total_tokens: tokenCount.optional(),
});

/** The usage object of a response or chunk; undefined when absent or malformed (the request is then unpriced). */
export function readUsage(raw: unknown): TokenUsage | undefined {
  const result = usageSchema.safeParse(raw);
  if (!result.success) return undefined;
  const { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens } = result.data;
  return { promptTokens, completionTokens, totalTokens: totalTokens ?? promptTokens + completionTokens };
}
