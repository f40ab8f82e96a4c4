import type { MicroUsd } from '../money';
import type { ModelPrice } from './price-book';

/** Catalog prices are per this many tokens. */
export const TOKENS_PER_PRICE = 1_000_000n;

/**
 * The largest token count a request may report (a trillion: far beyond any
 * context window). With it, a cost fits an int64 whenever a model's input
 * and output prices add up to at most $9,000,000 per million tokens.
 */
export const MAX_TOKENS = 1_000_000_000_000n;

export interface TokenCounts {
  inputTokens: bigint;
  outputTokens: bigint;
}

/** `numerator / denominator` rounded to the nearest integer, halves up; both non-negative. */
export function divideRoundingHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError('divideRoundingHalfUp takes a non-negative numerator and a positive denominator');
  return (2n * numerator + denominator) / (2n * denominator);
}

/**
 * What the tokens cost on this model, in integer micro-dollars: the exact
 * amount (input and output together) rounded once, half up. Rounding each
 * part separately could be off by a micro-dollar; rounding the sum never is.
 */
export function costMicros(model: ModelPrice, { inputTokens, outputTokens }: TokenCounts): MicroUsd {
  const exactTimesMillion = inputTokens * model.inputMicrosPerMillion + outputTokens * model.outputMicrosPerMillion;
  return divideRoundingHalfUp(exactTimesMillion, TOKENS_PER_PRICE);
}
