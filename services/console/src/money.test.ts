import { axisUsd, displayUsd, toMicros } from './money';

describe('money in the Console', () => {
  it('reads the API’s decimal strings as exact micro-dollars', () => {
    expect(toMicros('0.000686')).toBe(686n);
    expect(toMicros('12.345678')).toBe(12_345_678n);
    // Past 2^53 micro-dollars, still exact.
    expect(toMicros('9007199254.740993')).toBe(9_007_199_254_740_993n);
    expect(toMicros('-1.000001')).toBe(-1_000_001n);
  });

  it('refuses anything that is not 6 decimal places', () => {
    for (const bad of ['1', '1.5', '0.1234567', '', 'NaN', '1e-6']) expect(() => toMicros(bad)).toThrow(/6 decimal places/);
  });

  it('shows the API’s digits untouched', () => {
    expect(displayUsd('0.000686')).toBe('$0.000686');
    expect(displayUsd('1234567.000001')).toBe('$1,234,567.000001');
    expect(displayUsd('0.000000')).toBe('$0.000000');
  });

  it('labels chart axis positions', () => {
    expect(axisUsd(0)).toBe('$0');
    expect(axisUsd(1_500_000)).toBe('$1.50');
    expect(axisUsd(250)).toBe('$0.00025');
  });
});
