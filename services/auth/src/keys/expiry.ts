import { DomainError } from '@gateway/lib/errors';

/** Keys may live up to ten years (docs/api.md#limits-and-allowances); the Console offers 30, 90 and 365 days. */
export const MAX_EXPIRY_DAYS = 3650;
const DAY_MS = 86_400_000;

/** How the creator asked for the key to expire: in N days, at a time, or never. */
export type ExpiryRequest = { inDays: number } | { at: Date } | null;

/**
 * The expiry timestamp of a new key. `inDays` is already a whole number in
 * 1..MAX_EXPIRY_DAYS (checked with the request); an absolute time must lie in
 * the future and at most MAX_EXPIRY_DAYS ahead.
 */
export function resolveExpiry(request: ExpiryRequest, now: Date): Date | null {
  if (request === null) return null;
  if ('inDays' in request) return new Date(now.getTime() + request.inDays * DAY_MS);
  if (request.at.getTime() <= now.getTime()) {
    throw new DomainError('validation', 'expires_at: must be in the future', { field: 'expires_at' });
  }
  if (request.at.getTime() > now.getTime() + MAX_EXPIRY_DAYS * DAY_MS) {
    throw new DomainError('validation', `expires_at: must be at most ${MAX_EXPIRY_DAYS} days (ten years) from now`, {
      field: 'expires_at',
    });
  }
  return request.at;
}
