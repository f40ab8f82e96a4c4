import { MemoryAttemptThrottle } from './throttle';

/** Memory bounds of the in-process store; its semantics are in test/throttle.contract.test.ts. */
describe('MemoryAttemptThrottle memory', () => {
  const policy = { limit: 1, windowSeconds: 10 };

  it('drops closed windows as new failures arrive', async () => {
    let now = 0;
    const throttle = new MemoryAttemptThrottle({ now: () => now });
    for (let i = 0; i < 50; i += 1) await throttle.recordFailure(`old-${i}`, policy);
    expect(throttle.trackedKeys).toBe(50);
    now += policy.windowSeconds * 1000;
    await throttle.recordFailure('new', policy);
    expect(throttle.trackedKeys).toBe(1);
  });

  it('forgets the oldest windows beyond its key limit', async () => {
    let now = 0;
    const throttle = new MemoryAttemptThrottle({ maxKeys: 3, now: () => now });
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await throttle.recordFailure(key, policy);
      now += 1;
    }
    expect(throttle.trackedKeys).toBe(3);
    await expect(throttle.retryAfterSeconds('a', policy)).resolves.toBe(0);
    await expect(throttle.retryAfterSeconds('b', policy)).resolves.toBe(0);
    await expect(throttle.retryAfterSeconds('e', policy)).resolves.toBe(10);
  });

  it('reports the seconds left, rounded up', async () => {
    let now = 0;
    const throttle = new MemoryAttemptThrottle({ now: () => now });
    await throttle.recordFailure('k', policy);
    now = 8_500;
    await expect(throttle.retryAfterSeconds('k', policy)).resolves.toBe(2);
    now = 9_999;
    await expect(throttle.retryAfterSeconds('k', policy)).resolves.toBe(1);
    now = 10_000;
    await expect(throttle.retryAfterSeconds('k', policy)).resolves.toBe(0);
  });
});
