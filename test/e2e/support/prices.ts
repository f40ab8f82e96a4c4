import { loadCatalog } from '@gateway/lib/catalog';
import { TEST_CATALOG_PATH } from './catalog';

/** The catalog the stacks run on, read here to price calls independently of the pricing service. */
export const testCatalog = loadCatalog(TEST_CATALOG_PATH);

/**
 * The cost rule of the pricing service's README, recomputed: tokens times
 * the per-million prices, summed, divided by a million, rounded half up, in
 * integer micro-dollars.
 */
export function costOf(model: string, usage: { prompt_tokens: number; completion_tokens: number }): bigint {
  const entry = testCatalog.models.get(model);
  if (!entry) throw new Error(`model ${model} is not in the test catalog`);
  const total = BigInt(usage.prompt_tokens) * entry.inputMicrosPerMillion + BigInt(usage.completion_tokens) * entry.outputMicrosPerMillion;
  return (total + 500_000n) / 1_000_000n;
}
