import { DomainError } from '@gateway/lib/errors';

/**
 * Keys may live up to ten years (docs/api.md#limits-and-allowances); the Console offers 30, 90 and 365 days.
 * A count of days is bounded by 3650; an absolute time by ten calendar years.
 */
export const MAX_EXPIRY_DAYS = 3650;
export const MAX_EXPIRY_YEARS = 10;
const DAY_MS = 86_400_000;

/** How the creator asked for the key to expire: in N days, at a time, or never. */
export type ExpiryRequest = { inDays: number } | { at: Date } | null;

/**
 * The last UTC calendar day an absolute expiry may fall on: the same month and day
 * ten years after `now` (the last day of February when that year has no 29th).
 * Returned as the first instant after that day, so any time on it is allowed.
 */
export function latestExpiry(now: Date): { exclusiveEnd: Date; lastDay: string } {
  const year = now.getUTCFullYear() + MAX_EXPIRY_YEARS;
  const month = now.getUTCMonth();
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const lastDay = new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), daysInMonth)));
  return { exclusiveEnd: new Date(lastDay.getTime() + DAY_MS), lastDay: lastDay.toISOString().slice(0, 10) };
}

/**
 * The expiry timestamp of a new key. `inDays` is already a whole number in
 * 1..MAX_EXPIRY_DAYS (checked with the request); an absolute time must lie in
 * the future and on or before the same calendar day ten years ahead (UTC).
 */
export function resolveExpiry(request: ExpiryRequest, now: Date): Date | null {
  if (request === null) return null;
  if ('inDays' in request) return new Date(now.getTime() + request.inDays * DAY_MS);
  if (request.at.getTime() <= now.getTime()) {
    throw new DomainError('validation', 'expires_at: must be in the future', { field: 'expires_at' });
  }
  const { exclusiveEnd, lastDay } = latestExpiry(now);
  if (request.at.getTime() >= exclusiveEnd.getTime()) {
    throw new DomainError('validation', `expires_at: must be at most ten calendar years from now (on or before ${lastDay} UTC)`, {
      field: 'expires_at',
    });
  }
  return request.at;
}
