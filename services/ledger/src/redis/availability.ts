import { DomainError } from '@gateway/lib/errors';
import type { Redis } from '@gateway/lib/redis';

/**
 * Fails at once while the connection is down rather than queueing the
 * command behind reconnect attempts: the caller (edge) decides how to degrade.
 */
export function requireConnected(redis: Redis): void {
  if (redis.status !== 'ready') {
    // No internal reason: the outage is logged once by lib's reportConnectionErrors, not once per call.
    throw new DomainError('unavailable', 'The ledger store is unavailable.');
  }
}

/** Waits for the first connection, up to a bound, so a fresh process does not refuse its first calls. */
export function firstConnection(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (connected: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(connected);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}
