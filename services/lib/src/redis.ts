import { Redis } from 'ioredis';

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
