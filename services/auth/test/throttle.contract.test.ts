import { randomBytes } from 'node:crypto';
import { createRedis } from '@gateway/lib/redis';
import { Redis } from 'ioredis';
import { testRedisUrl } from '../../../test/support/databases';
import { MemoryAttemptThrottle, RedisAttemptThrottle, type AttemptThrottle, type ThrottlePolicy } from '../src/identity/throttle';
import { eventually, unique } from './support/identity-fixtures';

/**
 * The Redis store (stack, cluster) and the in-process store (embedded mode)
 * must behave the same: every case below runs against both.
 */
const namespace = `test:throttle:${randomBytes(4).toString('hex')}:`;
const redisClients: Redis[] = [];

function redisThrottle(): AttemptThrottle {
  const redis = createRedis(testRedisUrl());
  redisClients.push(redis);
  return new RedisAttemptThrottle(redis, namespace);
}

afterAll(async () => {
  const [first] = redisClients;
  if (first) {
    const keys = await first.keys(`${namespace}*`);
    if (keys.length > 0) await first.del(...keys);
  }
  for (const redis of redisClients) redis.disconnect();
});

async function recordFailures(throttle: AttemptThrottle, key: string, policy: ThrottlePolicy, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await throttle.recordFailure(key, policy);
}

describe.each([
  ['RedisAttemptThrottle', redisThrottle],
  ['MemoryAttemptThrottle', () => new MemoryAttemptThrottle()],
] as const)('%s', (_name, makeThrottle) => {
  const policy: ThrottlePolicy = { limit: 3, windowSeconds: 60 };
  let throttle: AttemptThrottle;
  beforeAll(() => {
    throttle = makeThrottle();
  });

  it('allows a key that has never failed', async () => {
    await expect(throttle.retryAfterSeconds(unique('fresh'), policy)).resolves.toBe(0);
  });

  it('remembers a noted key, and only that one', async () => {
    const key = unique('known');
    await expect(throttle.remembers(key)).resolves.toBe(false);
    await throttle.remember(key, 60);
    await expect(throttle.remembers(key)).resolves.toBe(true);
    await expect(throttle.remembers(unique('other'))).resolves.toBe(false);
    // A noted key is no failure.
    await expect(throttle.retryAfterSeconds(key, { limit: 1, windowSeconds: 60 })).resolves.toBe(0);
  });

  it('allows a key under the limit', async () => {
    const key = unique('under');
    await recordFailures(throttle, key, policy, policy.limit - 1);
    await expect(throttle.retryAfterSeconds(key, policy)).resolves.toBe(0);
  });

  it('blocks a key at the limit, with a retry-after within the window', async () => {
    const key = unique('at-limit');
    await recordFailures(throttle, key, policy, policy.limit);
    const wait = await throttle.retryAfterSeconds(key, policy);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(policy.windowSeconds);
  });

  it('judges the same count against whatever limit is asked', async () => {
    const key = unique('limits');
    await recordFailures(throttle, key, policy, 2);
    await expect(throttle.retryAfterSeconds(key, { ...policy, limit: 2 })).resolves.toBeGreaterThan(0);
    await expect(throttle.retryAfterSeconds(key, { ...policy, limit: 3 })).resolves.toBe(0);
  });

  it('counts concurrent failures exactly', async () => {
    const key = unique('concurrent');
    await Promise.all(Array.from({ length: 25 }, () => throttle.recordFailure(key, policy)));
    await expect(throttle.retryAfterSeconds(key, { ...policy, limit: 25 })).resolves.toBeGreaterThan(0);
    await expect(throttle.retryAfterSeconds(key, { ...policy, limit: 26 })).resolves.toBe(0);
  });

  it('lets a key try again once its window has closed, with a fresh count', async () => {
    const short: ThrottlePolicy = { limit: 2, windowSeconds: 1 };
    const key = unique('expiry');
    await recordFailures(throttle, key, short, short.limit);
    await expect(throttle.retryAfterSeconds(key, short)).resolves.toBeGreaterThan(0);
    await eventually(async () => ((await throttle.retryAfterSeconds(key, short)) === 0 ? true : undefined));
    await throttle.recordFailure(key, short);
    await expect(throttle.retryAfterSeconds(key, short)).resolves.toBe(0);
  });

  it('does not extend the window for failures recorded while blocked', async () => {
    const short: ThrottlePolicy = { limit: 1, windowSeconds: 2 };
    const key = unique('no-extension');
    await throttle.recordFailure(key, short);
    // Keep failing while blocked; the window opened by the first failure still closes.
    await eventually(async () => {
      if ((await throttle.retryAfterSeconds(key, short)) === 0) return true;
      await throttle.recordFailure(key, short);
      return undefined;
    });
  });

  it('forgets a key on clear', async () => {
    const key = unique('clear');
    await recordFailures(throttle, key, policy, policy.limit);
    await throttle.clear(key);
    await expect(throttle.retryAfterSeconds(key, policy)).resolves.toBe(0);
    await throttle.recordFailure(key, policy);
    await expect(throttle.retryAfterSeconds(key, { ...policy, limit: 1 })).resolves.toBeGreaterThan(0);
    await expect(throttle.retryAfterSeconds(key, { ...policy, limit: 2 })).resolves.toBe(0);
  });

  it('keeps keys independent', async () => {
    const blocked = unique('blocked');
    const other = unique('other');
    await recordFailures(throttle, blocked, policy, policy.limit);
    await recordFailures(throttle, other, policy, 1);
    await expect(throttle.retryAfterSeconds(blocked, policy)).resolves.toBeGreaterThan(0);
    await expect(throttle.retryAfterSeconds(other, policy)).resolves.toBe(0);
    await throttle.clear(other);
    await expect(throttle.retryAfterSeconds(blocked, policy)).resolves.toBeGreaterThan(0);
  });
});

describe('RedisAttemptThrottle across replicas', () => {
  it('shares counts between instances on separate connections', async () => {
    const policy: ThrottlePolicy = { limit: 4, windowSeconds: 60 };
    const [replicaA, replicaB] = [redisThrottle(), redisThrottle()];
    const key = unique('shared');
    await recordFailures(replicaA, key, policy, 2);
    await recordFailures(replicaB, key, policy, 2);
    await expect(replicaA.retryAfterSeconds(key, policy)).resolves.toBeGreaterThan(0);
    await replicaB.clear(key);
    await expect(replicaA.retryAfterSeconds(key, policy)).resolves.toBe(0);
  });

  it('fails closed with a 503 when Redis does not answer', async () => {
    // Nothing listens on port 1; the client gives up at the first refusal instead of reconnecting.
    const redis = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    const closed = new Promise((resolve) => redis.once('end', resolve));
    const throttle = new RedisAttemptThrottle(redis, namespace);
    await expect(throttle.retryAfterSeconds('any', { limit: 1, windowSeconds: 1 })).rejects.toMatchObject({ kind: 'unavailable' });
    await closed;
  });
});
