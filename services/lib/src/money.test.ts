import fc from 'fast-check';
import { MICROS_PER_USD, formatUsd, parseMicros, parseUsd } from './money';

describe('formatUsd', () => {
  it.each([
    [0n, '0.000000'],
    [1n, '0.000001'],
    [1234n, '0.001234'],
    [1_000_000n, '1.000000'],
    [12_345_678n, '12.345678'],
    [-1n, '-0.000001'],
    [-2_500_000n, '-2.500000'],
    [9_223_372_036_854_775_807n, '9223372036854.775807'],
  ])('formats %p micro-dollars as %p', (micros, text) => {
    expect(formatUsd(micros)).toBe(text);
  });

  it('always prints exactly six decimal places', () => {
    fc.assert(fc.property(fc.bigInt(), (micros) => expect(formatUsd(micros)).toMatch(/^-?\d+\.\d{6}$/)));
  });
});

describe('parseUsd', () => {
  it('gives back every formatted amount, negative ones included', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (micros) => expect(parseUsd(formatUsd(micros))).toBe(micros)));
  });

  it('formats every canonical amount it parses back to the same text', () => {
    const canonical = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 999_999 }))
      .filter(([negative, whole, fraction]) => !negative || whole > 0n || fraction > 0)
      .map(([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}.${String(fraction).padStart(6, '0')}`);
    fc.assert(fc.property(canonical, (text) => expect(formatUsd(parseUsd(text))).toBe(text)));
  });

  it.each([
    ['1', 1_000_000n],
    ['1.5', 1_500_000n],
    ['0.000001', 1n],
    ['-0.25', -250_000n],
    [' 3.10 ', 3_100_000n],
  ])('reads %p as %p micro-dollars', (text, micros) => {
    expect(parseUsd(text)).toBe(micros);
  });

  it('rejects more than six decimal places instead of rounding', () => {
    expect(() => parseUsd('0.0000001')).toThrow(RangeError);
    expect(() => parseUsd('1.1234567')).toThrow(RangeError);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^\d{7,12}$/), (whole, fraction) => {
        expect(() => parseUsd(`${whole}.${fraction}`)).toThrow(RangeError);
      }),
    );
  });

  it.each(['', '.5', '1.', '1e3', '0x10', '1,000.00', '+1.00', '--1', 'NaN', 'Infinity', '$1.00', '1.00 USD'])('rejects %p', (text) => {
    expect(() => parseUsd(text)).toThrow(RangeError);
  });

  it('never goes through a float', () => {
    // 2^53 + 1 dollars is not representable as a double.
    expect(parseUsd('9007199254740993.000001')).toBe(9_007_199_254_740_993n * MICROS_PER_USD + 1n);
  });
});

describe('parseMicros', () => {
  it('reads an int64 string exactly', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (micros) => expect(parseMicros(micros.toString())).toBe(micros)));
  });

  it.each(['', '1.5', '1e6', ' 1', '0x1f', '-'])('rejects %p', (text) => {
    expect(() => parseMicros(text)).toThrow(RangeError);
  });
});
