import fc from 'fast-check';
import { KEY_LENGTH, PREFIX_LENGTH, generateKey, keyMarker, parseKey, type KeyEnvironment } from './format';

const environments = fc.constantFrom<KeyEnvironment>('live', 'test');
const hexDigit = fc.constantFrom(...'0123456789abcdef');
const nonHex = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz_-+/= .');

describe('API key format', () => {
  it('is 65 characters: marker, 8 hex selector, 48 hex secret; the prefix is marker plus selector', () => {
    fc.assert(
      fc.property(environments, (environment) => {
        const { key, prefix } = generateKey(environment);
        expect(key).toHaveLength(KEY_LENGTH);
        expect(key).toMatch(new RegExp(`^svc_${environment}_[0-9a-f]{56}$`));
        expect(prefix).toHaveLength(PREFIX_LENGTH);
        expect(prefix).toBe(key.slice(0, PREFIX_LENGTH));
        expect(prefix.startsWith(keyMarker(environment))).toBe(true);
        expect(prefix.slice(keyMarker(environment).length)).toMatch(/^[0-9a-f]{8}$/);
      }),
      { numRuns: 500 },
    );
  });

  it('draws distinct keys and distinct selectors', () => {
    const draws = Array.from({ length: 20_000 }, () => generateKey('test'));
    expect(new Set(draws.map(({ key }) => key)).size).toBe(draws.length);
    // 20,000 draws from 2^32 selectors collide with probability about 5%; allow a few.
    expect(new Set(draws.map(({ prefix }) => prefix)).size).toBeGreaterThan(draws.length - 3);
  });

  it('parses every generated key back to its prefix', () => {
    fc.assert(
      fc.property(environments, (environment) => {
        const { key, prefix } = generateKey(environment);
        expect(parseKey(key)).toBe(prefix);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts any value of the exact shape, in either environment', () => {
    fc.assert(
      fc.property(environments, fc.array(hexDigit, { minLength: 56, maxLength: 56 }), (environment, digits) => {
        const key = keyMarker(environment) + digits.join('');
        expect(parseKey(key)).toBe(key.slice(0, PREFIX_LENGTH));
      }),
    );
  });

  it('rejects near misses: one character changed, dropped or added', () => {
    fc.assert(
      fc.property(environments, fc.nat(), nonHex, (environment, at, replacement) => {
        const { key } = generateKey(environment);
        // A character outside lowercase hex replaces one of the hex digits or breaks the marker.
        const index = at % KEY_LENGTH;
        const changed = key.slice(0, index) + replacement + key.slice(index + 1);
        fc.pre(changed !== key); // the marker's own letters are not hex
        expect(parseKey(changed)).toBeNull();
        expect(parseKey(key.slice(0, index) + key.slice(index + 1))).toBeNull();
        expect(parseKey(key.slice(0, index) + 'a' + key.slice(index))).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('rejects other shapes', () => {
    const { key } = generateKey('live');
    for (const value of [
      '',
      key.toUpperCase(),
      key.replace('svc_live_', 'svc_prod_'),
      key.replace('svc_live_', 'svx_live_'),
      ` ${key.slice(1)}`,
      `${key.slice(0, -1)}\n`,
      'gwt_' + 'a'.repeat(48),
      'pas_' + 'a'.repeat(48),
    ]) {
      expect(parseKey(value)).toBeNull();
    }
  });
});
