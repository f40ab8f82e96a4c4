import { createHash } from 'node:crypto';

/**
 * SHA-256 (hex) of a whole credential: what API keys and legacy credentials
 * are stored and looked up as. Plain SHA-256 is right for 192-bit random
 * secrets (docs/api.md#api-keys); a slow password hash would only slow every request.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
