import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets kept at rest (a caller's provider key, skill
 * credentials). The stored form is `v1.<iv>.<tag>.<ciphertext>` in base64url;
 * plaintext exists only in memory, only while it is used.
 */
const VERSION = 'v1';
/** GCM accepts tags as short as 4 bytes unless told otherwise; a short tag makes forgery cheap. */
const TAG_BYTES = 16;

export function parseCipherKey(material: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(material) ? Buffer.from(material, 'hex') : Buffer.from(material, 'base64');
  if (key.length !== 32) throw new RangeError('cipher key must be 32 bytes, as 64 hex characters or base64');
  return key;
}

export function encryptSecret(plaintext: string, key: Buffer, associatedData = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function decryptSecret(stored: string, key: Buffer, associatedData = ''): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new RangeError('not a stored secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
