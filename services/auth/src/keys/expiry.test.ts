import { DomainError } from '@gateway/lib/errors';
import { resolveExpiry } from './expiry';

const at = (iso: string) => ({ at: new Date(iso) });

describe('an absolute key expiry', () => {
  const now = new Date('2026-11-25T21:30:00Z');

  it('may fall on any time of the same calendar day ten years ahead', () => {
    for (const iso of ['2036-11-24T12:00:00Z', '2036-11-25T00:00:00Z', '2036-11-25T23:59:59.999Z']) {
      expect(resolveExpiry(at(iso), now)).toEqual(new Date(iso));
    }
  });

  it('is refused one day past ten calendar years, with a message saying the limit', () => {
    expect(() => resolveExpiry(at('2036-11-26T00:00:00Z'), now)).toThrow(DomainError);
    expect(() => resolveExpiry(at('2036-11-26T00:00:00Z'), now)).toThrow(
      'expires_at: must be at most ten calendar years from now (on or before 2036-11-25 UTC)',
    );
  });

  it('counts from February 29 to the last day of February ten years on', () => {
    const leapDay = new Date('2028-02-29T08:00:00Z');
    expect(resolveExpiry(at('2038-02-28T23:00:00Z'), leapDay)).toEqual(new Date('2038-02-28T23:00:00Z'));
    expect(() => resolveExpiry(at('2038-03-01T00:00:00Z'), leapDay)).toThrow('on or before 2038-02-28 UTC');
  });

  it('must lie in the future', () => {
    expect(() => resolveExpiry(at('2026-11-25T21:29:59Z'), now)).toThrow('must be in the future');
  });
});
