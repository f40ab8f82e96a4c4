import { createRedis } from '@gateway/lib/redis';
import { startRedisServer, type RedisServer } from './redis-server';

/**
 * The Redis the fault runs start for themselves persists as production's
 * does: what it acknowledged survives kill -9 (a counter, and a stream entry
 * as the ledger queues its records).
 */
describe('a Redis server with AOF', () => {
  let server: RedisServer;

  afterAll(() => server?.stop());

  it('keeps every acknowledged write through kill -9 and a restart', async () => {
    server = await startRedisServer({ persistence: 'aof' });
    const before = createRedis(server.url);
    await before.incrby('spend', 1234);
    const id = await before.xadd('records', '*', 'request_id', 'r-1');
    before.disconnect();

    const killed = server.pid();
    await server.kill();
    await server.start();
    expect(server.pid()).not.toBe(killed);

    const after = createRedis(server.url);
    try {
      expect(await after.get('spend')).toBe('1234');
      expect(await after.xrange('records', '-', '+')).toEqual([[id, ['request_id', 'r-1']]]);
    } finally {
      after.disconnect();
    }
  });
});
