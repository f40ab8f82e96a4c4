import { DomainError } from '@gateway/lib/errors';
import type { Redis } from '@gateway/lib/redis';

/**
 * How many failures a key may collect, and over what window. The window is
 * fixed: it opens with the first failure and closes `windowSeconds` later,
 * whatever happens in between, so a blocked caller cannot extend its own
 * block and always gets a true retry-after.
 */
export interface ThrottlePolicy {
  limit: number;
  windowSeconds: number;
}

/**
 * Failed-attempt throttling shared by every replica that uses the same store.
 * Keys are opaque to the store (`login:account:<email>`, `login:source:<address>`).
 */
export interface AttemptThrottle {
  /** Seconds until `key` may try again: 0 while it has fewer than `policy.limit` failures in its window. */
  retryAfterSeconds(key: string, policy: ThrottlePolicy): Promise<number>;
  /** Counts one failure against `key`, opening a window of `policy.windowSeconds` if none is open. */
  recordFailure(key: string, policy: ThrottlePolicy): Promise<void>;
  /** Forgets every failure of `key` (after a success). */
  clear(key: string): Promise<void>;
  /** Notes `key` for `seconds` (a source an account signed in from). */
  remember(key: string, seconds: number): Promise<void>;
  /** Whether `key` was noted and its time has not run out. */
  remembers(key: string): Promise<boolean>;
}

/** Seconds left in a window, never 0 while it is still open. */
function secondsLeft(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000));
}

// INCR and the window's expiry in one atomic step, so replicas racing on the
// same key never leave a counter without an expiry (which would block forever).
const RECORD_FAILURE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count`;

// The count and the time left, read together.
const READ_WINDOW_SCRIPT = `
local count = redis.call('GET', KEYS[1])
if not count then return {0, 0} end
return {tonumber(count), redis.call('PTTL', KEYS[1])}`;

/** The store of the stack and the cluster: every replica sees the same counters. */
export class RedisAttemptThrottle implements AttemptThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly namespace = 'auth:failures:',
  ) {}

  async retryAfterSeconds(key: string, policy: ThrottlePolicy): Promise<number> {
    const [count, remainingMs] = (await this.call(() =>
      this.redis.eval(READ_WINDOW_SCRIPT, 1, this.namespace + key),
    )) as [number, number];
    return count >= policy.limit && remainingMs > 0 ? secondsLeft(remainingMs) : 0;
  }

  async recordFailure(key: string, policy: ThrottlePolicy): Promise<void> {
    await this.call(() => this.redis.eval(RECORD_FAILURE_SCRIPT, 1, this.namespace + key, policy.windowSeconds * 1000));
  }

  async clear(key: string): Promise<void> {
    await this.call(() => this.redis.del(this.namespace + key));
  }

  async remember(key: string, seconds: number): Promise<void> {
    // Noted with no failures, as the memory store notes it.
    await this.call(() => this.redis.set(this.namespace + key, '0', 'EX', seconds));
  }

  async remembers(key: string): Promise<boolean> {
    return (await this.call(() => this.redis.exists(this.namespace + key))) === 1;
  }

  /** Without its store the throttle protects nothing, so callers fail closed with a 503. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new DomainError('unavailable', 'Temporarily unavailable: the failed-attempt throttle store (Redis) does not answer.', {
        cause: error,
        internalReason: 'redis unavailable for the attempt throttle',
      });
    }
  }
}

interface Window {
  failures: number;
  endsAt: number;
}

export interface MemoryThrottleOptions {
  /** Upper bound on tracked keys; past it, the oldest windows are forgotten first. */
  maxKeys?: number;
  /** Clock in milliseconds (tests pass a fake one). */
  now?: () => number;
}

/**
 * The single-process store of the embedded mode: the same semantics as the
 * Redis one, in a Map. Memory stays bounded: closed windows are swept out
 * as failures arrive, and a hard cap evicts the oldest windows under a flood of keys.
 */
export class MemoryAttemptThrottle implements AttemptThrottle {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private readonly now: () => number;
  private nextSweepAt = 0;

  constructor({ maxKeys = 100_000, now = Date.now }: MemoryThrottleOptions = {}) {
    this.maxKeys = maxKeys;
    this.now = now;
  }

  /** Keys with an open window (for tests and metrics). */
  get trackedKeys(): number {
    return this.windows.size;
  }

  async retryAfterSeconds(key: string, policy: ThrottlePolicy): Promise<number> {
    const window = this.openWindow(key);
    return window && window.failures >= policy.limit ? secondsLeft(window.endsAt - this.now()) : 0;
  }

  async recordFailure(key: string, policy: ThrottlePolicy): Promise<void> {
    this.dropClosedWindows();
    const window = this.openWindow(key);
    if (window) {
      window.failures += 1;
      return;
    }
    this.windows.set(key, { failures: 1, endsAt: this.now() + policy.windowSeconds * 1000 });
    this.evictOldest();
  }

  private evictOldest(): void {
    // Map iteration follows insertion order, so the first keys hold the oldest windows.
    for (const oldest of this.windows.keys()) {
      if (this.windows.size <= this.maxKeys) break;
      this.windows.delete(oldest);
    }
  }

  async clear(key: string): Promise<void> {
    this.windows.delete(key);
  }

  /** A noted key is a window without failures, swept and capped like the others. */
  async remember(key: string, seconds: number): Promise<void> {
    this.windows.delete(key);
    this.windows.set(key, { failures: 0, endsAt: this.now() + seconds * 1000 });
    this.evictOldest();
  }

  async remembers(key: string): Promise<boolean> {
    return this.openWindow(key) !== undefined;
  }

  private openWindow(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt <= this.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  /** A full pass at most once a second keeps writes cheap under a flood. */
  private dropClosedWindows(): void {
    const now = this.now();
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + 1000;
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }
}
