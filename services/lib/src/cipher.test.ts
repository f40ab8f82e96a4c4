import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { decryptSecret, encryptSecret, parseCipherKey } from './cipher';

const key = randomBytes(32);

/** Replaces one character of a base64url part with a different one. */
function flipCharacter(part: string): string {
  const replacement = part[0] === 'A' ? 'B' : 'A';
  return `${replacement}${part.slice(1)}`;
}

describe('encryptSecret / decryptSecret', () => {
  it('gives back any plaintext, unicode included', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 40 }), (plaintext, aad) => {
      expect(decryptSecret(encryptSecret(plaintext, key, aad), key, aad)).toBe(plaintext);
    }));
  });

  it('stores the versioned form and not the plaintext', () => {
    const plaintext = 'sk-provider-0123456789abcdef';
    const stored = encryptSecret(plaintext, key);
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]*$/);
    expect(stored).not.toContain(plaintext);
    expect(stored).not.toContain(Buffer.from(plaintext).toString('base64url'));
  });

  it('uses a fresh IV each time', () => {
    expect(encryptSecret('same', key)).not.toBe(encryptSecret('same', key));
  });

  it.each([
    ['the IV', 1],
    ['the tag', 2],
    ['the ciphertext', 3],
  ])('detects tampering with %s', (_label, index) => {
    const parts = encryptSecret('sk-provider-0123456789abcdef', key).split('.');
    parts[index] = flipCharacter(parts[index] ?? '');
    expect(() => decryptSecret(parts.join('.'), key)).toThrow();
  });

  it('rejects a truncated tag, which GCM would otherwise accept', () => {
    const [version, iv, tag, ciphertext] = encryptSecret('sk-provider-0123456789abcdef', key).split('.');
    const truncated = Buffer.from(tag ?? '', 'base64url').subarray(0, 4).toString('base64url');
    expect(() => decryptSecret([version, iv, truncated, ciphertext].join('.'), key)).toThrow();
  });

  it('fails with the wrong key', () => {
    const stored = encryptSecret('sk-provider-0123456789abcdef', key);
    expect(() => decryptSecret(stored, randomBytes(32))).toThrow();
  });

  it('fails when the associated data differs', () => {
    const stored = encryptSecret('sk-provider-0123456789abcdef', key, 'agent:1');
    expect(() => decryptSecret(stored, key, 'agent:2')).toThrow();
    expect(() => decryptSecret(stored, key)).toThrow();
  });

  it.each(['', 'plaintext', 'v2.a.b.c', 'v1.a.b', 'v1..b.c'])('rejects %p as not a stored secret', (stored) => {
    expect(() => decryptSecret(stored, key)).toThrow(RangeError);
  });
});

describe('parseCipherKey', () => {
  it('reads 64 hex characters and base64 of 32 bytes', () => {
    const material = randomBytes(32);
    expect(parseCipherKey(material.toString('hex'))).toEqual(material);
    expect(parseCipherKey(material.toString('hex').toUpperCase())).toEqual(material);
    expect(parseCipherKey(material.toString('base64'))).toEqual(material);
  });

  it.each([
    ['too short', randomBytes(16).toString('hex')],
    ['too long', randomBytes(48).toString('base64')],
    ['empty', ''],
  ])('rejects a key that is %s without echoing it', (_label, material) => {
    expect(() => parseCipherKey(material)).toThrow(RangeError);
    if (material) expect(() => parseCipherKey(material)).not.toThrow(material);
  });
});
