import { Redis } from 'ioredis';
import { outageReporter, type OutageLogger } from './outages';

export type { Redis } from 'ioredis';

/**
 * A Redis client that fails fast instead of queueing commands while the
 * server is away: callers decide how to degrade, nothing hangs.
 */
export function createRedis(url: string, { name }: { name?: string } = {}): Redis {
  return new Redis(url, {
    // Shown by CLIENT LIST, to tell which service and role a connection is.
    ...(name ? { connectionName: name } : {}),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
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
