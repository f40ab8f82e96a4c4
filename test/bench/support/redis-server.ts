import { startRedisServer } from '../../support/redis-server';

/**
 * A Redis server of the benchmark's own, persisting nothing: its CPU is then
 * the benchmark's alone (the shared one on 6379 also serves every other test
 * run on the machine).
 */
export interface PrivateRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const server = await startRedisServer({ persistence: 'none' });
  return { url: server.url, pid: server.pid(), stop: server.stop };
}
