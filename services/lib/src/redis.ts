import { Redis } from 'ioredis';
import type { Logger } from './logging';

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
 * Logs a connection's errors once per outage instead of once per reconnect
 * attempt, and its return. It is also the client's `error` listener: without
 * one, ioredis prints every failed attempt to stderr outside the JSON log.
 */
export function reportConnectionErrors(redis: Redis, logger: Pick<Logger, 'warn' | 'info'>, connection: string): void {
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ connection, err: error }, 'redis connection lost');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ connection }, 'redis connection restored');
  });
}
