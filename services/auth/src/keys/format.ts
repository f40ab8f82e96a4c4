import { randomBytes } from 'node:crypto';

/**
 * API key layout (docs/api.md#api-keys), 65 characters:
 *   `svc_live_` or `svc_test_` (9)  environment marker
 *   8 lowercase hex                  selector, 4 random bytes
 *   48 lowercase hex                 secret, 24 random bytes
 * Marker plus selector (17 characters) is the prefix: stored, unique, not
 * secret, the lookup key. Only SHA-256 of the whole key is stored.
 */
export type KeyEnvironment = 'live' | 'test';

export const KEY_LENGTH = 65;
export const PREFIX_LENGTH = 17;
const SELECTOR_BYTES = 4;
const SECRET_BYTES = 24;

const KEY_SHAPE = /^(svc_(?:live|test)_[0-9a-f]{8})[0-9a-f]{48}$/;

export function keyMarker(environment: KeyEnvironment): string {
  return `svc_${environment}_`;
}

export interface GeneratedKey {
  /** The whole key: shown once to its creator, never stored. */
  key: string;
  prefix: string;
}

export function generateKey(environment: KeyEnvironment): GeneratedKey {
  const prefix = keyMarker(environment) + randomBytes(SELECTOR_BYTES).toString('hex');
  return { key: prefix + randomBytes(SECRET_BYTES).toString('hex'), prefix };
}

/**
 * The prefix of a value shaped exactly like an API key (either environment:
 * a key from the other environment is simply unknown here), or null.
 */
export function parseKey(value: string): string | null {
  if (value.length !== KEY_LENGTH) return null;
  return KEY_SHAPE.exec(value)?.[1] ?? null;
}
