import { createServer } from 'node:net';
import { capturedLogger } from '../test/support/captured-logger';
import { createRedis, REDIS_RECONNECT_MAX_MS, reportConnectionErrors } from './redis';

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('reportConnectionErrors', () => {
  it('logs an outage once however often the client retries, and listens so ioredis prints nothing itself', async () => {
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`);
    const { logger, lines } = capturedLogger();
    let errors = 0;
    redis.on('error', () => (errors += 1));
    reportConnectionErrors(redis, logger, 'commands');
    try {
      const deadline = Date.now() + 5000;
      while (errors < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(errors).toBeGreaterThanOrEqual(3);
      expect(lines()).toEqual([expect.objectContaining({ level: 'warn', dependency: 'redis', connection: 'commands', msg: 'dependency unavailable' })]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('createRedis', () => {
  it('never waits longer than REDIS_RECONNECT_MAX_MS between reconnect attempts, however long Redis is away', async () => {
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`);
    redis.on('error', () => undefined);
    // Enough attempts for a growing wait to have passed any cap that is a few seconds.
    const ATTEMPTS = 25;
    const delays: number[] = [];
    try {
      await new Promise<void>((resolve) => {
        redis.on('reconnecting', (delay: number) => {
          delays.push(delay);
          if (delays.length === ATTEMPTS) resolve();
        });
      });
    } finally {
      redis.disconnect();
    }
    expect(Math.max(...delays)).toBe(REDIS_RECONNECT_MAX_MS);
  });
});
