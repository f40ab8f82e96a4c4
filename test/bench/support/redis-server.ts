import { startRedisServer, type RedisPersistence } from '../../support/redis-server';

/**
 * A Redis server of the benchmark's own (never the shared one on 6379, which
 * also serves every other test run on the machine), so its CPU is the
 * benchmark's alone. `aof` persists as deploy/README.md asks of a production
 * Redis (`appendfsync always`: an fsync before each reply, the cost of a
 * durable record); `none` persists nothing, to read what that fsync costs.
 */
export interface PrivateRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startPrivateRedis(persistence: RedisPersistence): Promise<PrivateRedis> {
  const server = await startRedisServer({ persistence });
  return { url: server.url, pid: server.pid(), stop: server.stop };
}
