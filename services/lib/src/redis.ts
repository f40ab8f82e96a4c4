import { Redis } from 'ioredis';
import { outageReporter, type OutageLogger } from './outages';

export type { Redis } from 'ioredis';

/**
 * The longest wait between two reconnect attempts. Attempts start 100 ms
 * apart and grow by 100 ms each: capped at 500 ms, a Redis that comes back
 * after a long outage is reconnected to within half a second (at 2 s, the
 * cap it had, every service went on failing for up to two seconds after Redis
 * answered again). A refused connection costs next to nothing.
 */
export const REDIS_RECONNECT_MAX_MS = 500;

/** How long a command may wait for its reply by default before the client gives up on it. */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * A Redis client that fails fast instead of queueing commands while the
 * server is away: callers decide how to degrade, nothing hangs.
 */
export function createRedis(url: string, { name, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS }: { name?: string; commandTimeoutMs?: number } = {}): Redis {
  return new Redis(url, {
    // Shown by CLIENT LIST, to tell which service and role a connection is.
    ...(name ? { connectionName: name } : {}),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS),
  });
}

export async function pingRedis(redis: Redis): Promise<void> {
  const reply = await redis.ping();
  if (reply !== 'PONG') throw new Error(`unexpected PING reply: ${reply}`);
}

/**
 * Logs a connection's outage once however often it retries, and its return
 * (lib's outage reporter, as for every dependency); each failed attempt is
 * counted. It is also the client's `error` listener: without one, ioredis
 * prints every failed attempt to stderr outside the JSON log.
 */
export function reportConnectionErrors(redis: Redis, logger: OutageLogger, connection: string): void {
  const outages = outageReporter(logger, 'redis', { connection });
  redis.on('error', (error: Error) => outages.failed(error));
  redis.on('ready', () => outages.succeeded());
}
