import type { PriceList } from '@gateway/proto/gen/gateway/pricing/v1/pricing';
import { z } from 'zod';
import { DomainError } from '../errors';
import { parseInput } from '../validation';
import { priceBook, type PriceBook } from './price-book';

/** The price list as pricing publishes it (`WatchPriceList`); int64 prices travel as decimal strings. */
export function priceListMessage(book: PriceBook): PriceList {
  return {
    version: book.version,
    pricesAsOf: book.pricesAsOf,
    models: [...book.models].map(([model, price]) => ({
      model,
      inputMicrosPerMillionTokens: price.inputMicrosPerMillion.toString(),
      outputMicrosPerMillionTokens: price.outputMicrosPerMillion.toString(),
    })),
    plans: [...book.plans].map(([planTier, plan]) => ({
      planTier,
      ceilingModel: plan.ceilingModel ?? '',
      savingsEstimatePct: Object.fromEntries(plan.savingsEstimatePct),
    })),
  };
}

const micros = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of micro-dollars, 0 or more')
  .transform((text) => BigInt(text));

const priceListSchema = z.object({
  version: z.string().min(1, 'is required'),
  pricesAsOf: z.string(),
  models: z.array(z.object({ model: z.string().min(1), inputMicrosPerMillionTokens: micros, outputMicrosPerMillionTokens: micros })),
  plans: z.array(z.object({ planTier: z.string().min(1), ceilingModel: z.string(), savingsEstimatePct: z.record(z.string(), z.number().int()) })),
});

/**
 * A received price list, checked: its content must hash to the version it
 * claims, so what a caller prices with is exactly the list of that version.
 */
export function priceBookFromMessage(message: PriceList | undefined): PriceBook {
  const list = parseInput(priceListSchema, message ?? {});
  const book = priceBook({
    pricesAsOf: list.pricesAsOf,
    models: new Map(list.models.map((model) => [model.model, { inputMicrosPerMillion: model.inputMicrosPerMillionTokens, outputMicrosPerMillion: model.outputMicrosPerMillionTokens }])),
    plans: new Map(
      list.plans.map((plan) => [plan.planTier, { ceilingModel: plan.ceilingModel || undefined, savingsEstimatePct: new Map(Object.entries(plan.savingsEstimatePct)) }]),
    ),
  });
  if (book.version !== list.version) {
    throw new DomainError('internal', 'The price list received does not match its version.', {
      internalReason: `price list claims ${list.version}, its content hashes to ${book.version}`,
    });
  }
  return book;
}
