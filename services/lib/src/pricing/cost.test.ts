import { parseUsd } from '../money';
import fc from 'fast-check';
import { MAX_TOKENS, costMicros, divideRoundingHalfUp } from './cost';
import type { ModelPrice } from './price-book';

const priced = (inputUsd: string, outputUsd: string): ModelPrice => ({
  inputMicrosPerMillion: parseUsd(inputUsd),
  outputMicrosPerMillion: parseUsd(outputUsd),
});

/** Reference rounding, written differently on purpose: quotient, then up when the remainder is half or more. */
function referenceRound(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  return remainder * 2n >= denominator ? quotient + 1n : quotient;
}

const tokens = fc.bigInt({ min: 0n, max: MAX_TOKENS });
const price = fc.bigInt({ min: 0n, max: 1_000_000_000n }); // up to $1,000 per million tokens
const model = fc.tuple(price, price).map(([input, output]) => ({ ...priced('0', '0'), inputMicrosPerMillion: input, outputMicrosPerMillion: output }));

describe('costMicros', () => {
  it.each([
    ['gpt-4.1 list prices', '2.00', '8.00', 1000n, 500n, 6000n],
    ['zero tokens', '2.00', '8.00', 0n, 0n, 0n],
    ['a tenth of a micro-dollar rounds down', '0.10', '0.40', 1n, 0n, 0n],
    ['exactly half a micro-dollar rounds up', '0.10', '0.40', 5n, 0n, 1n],
    ['one and a half micro-dollars rounds up', '0.10', '0.40', 15n, 0n, 2n],
    ['just under half rounds down', '0.10', '0.40', 4n, 0n, 0n],
    ['a million output tokens cost the output price', '15.00', '75.00', 0n, 1_000_000n, 75_000_000n],
  ])('%s', (_label, inputUsd, outputUsd, inputTokens, outputTokens, expected) => {
    expect(costMicros(priced(inputUsd, outputUsd), { inputTokens, outputTokens })).toBe(expected);
  });

  it('rounds once over the sum, not each part', () => {
    // 3 input tokens at $0.10/M = 0.3 micro-dollars, 3 output tokens at $0.40/M = 1.2: the sum 1.5 rounds to 2,
    // where rounding each part (0 + 1) would give 1.
    expect(costMicros(priced('0.10', '0.40'), { inputTokens: 3n, outputTokens: 3n })).toBe(2n);
  });

  it('is exact against a bigint reference', () => {
    fc.assert(
      fc.property(model, tokens, tokens, (m, inputTokens, outputTokens) => {
        const exact = inputTokens * m.inputMicrosPerMillion + outputTokens * m.outputMicrosPerMillion;
        expect(costMicros(m, { inputTokens, outputTokens })).toBe(referenceRound(exact, 1_000_000n));
      }),
    );
  });

  it('never moves more than half a micro-dollar from the exact amount', () => {
    fc.assert(
      fc.property(model, tokens, tokens, (m, inputTokens, outputTokens) => {
        const exactTimesMillion = inputTokens * m.inputMicrosPerMillion + outputTokens * m.outputMicrosPerMillion;
        const errorTimesMillion = costMicros(m, { inputTokens, outputTokens }) * 1_000_000n - exactTimesMillion;
        expect(errorTimesMillion * 2n <= 1_000_000n && errorTimesMillion * 2n > -1_000_000n).toBe(true);
      }),
    );
  });

  it('is monotonic in input and output tokens', () => {
    fc.assert(
      fc.property(model, tokens, tokens, tokens, tokens, (m, a, b, c, d) => {
        const [fewerIn, moreIn] = a <= b ? [a, b] : [b, a];
        const [fewerOut, moreOut] = c <= d ? [c, d] : [d, c];
        expect(costMicros(m, { inputTokens: fewerIn, outputTokens: fewerOut })).toBeLessThanOrEqual(
          costMicros(m, { inputTokens: moreIn, outputTokens: fewerOut }),
        );
        expect(costMicros(m, { inputTokens: moreIn, outputTokens: fewerOut })).toBeLessThanOrEqual(
          costMicros(m, { inputTokens: moreIn, outputTokens: moreOut }),
        );
      }),
    );
  });

  it('fits an int64 at the token limit for prices up to $9,000,000 per million in total', () => {
    const expensive = priced('4500000.00', '4500000.00');
    expect(costMicros(expensive, { inputTokens: MAX_TOKENS, outputTokens: MAX_TOKENS })).toBeLessThanOrEqual(2n ** 63n - 1n);
  });
});

describe('divideRoundingHalfUp', () => {
  it('agrees with the reference for any non-negative numerator and positive denominator', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (numerator, denominator) =>
        expect(divideRoundingHalfUp(numerator, denominator)).toBe(referenceRound(numerator, denominator)),
      ),
    );
  });

  it('refuses a negative numerator or a zero denominator', () => {
    expect(() => divideRoundingHalfUp(-1n, 10n)).toThrow(RangeError);
    expect(() => divideRoundingHalfUp(1n, 0n)).toThrow(RangeError);
  });
});
