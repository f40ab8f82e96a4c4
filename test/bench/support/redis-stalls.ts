import type { Redis } from 'ioredis';
import { z } from 'zod';

/**
 * Redis's own record of the fsyncs that held it (its latency monitor): with
 * `appendfsync always` every reply waits for the fsync, so one slow fsync
 * holds every record behind it. The monitor keeps, per second, the longest
 * event over its threshold.
 */
export const STALL_THRESHOLD_MS = 5;

export interface RedisStalls {
  /** Seconds in which an fsync took longer than STALL_THRESHOLD_MS. */
  seconds: number;
  longestMs: number;
}

const historySchema = z.array(z.tuple([z.number(), z.number()]));

/** Has Redis record its events over STALL_THRESHOLD_MS. */
export async function monitorRedisStalls(redis: Redis): Promise<void> {
  await redis.config('SET', 'latency-monitor-threshold', String(STALL_THRESHOLD_MS));
}

/** The stalls since the previous call (or since monitoring began), and a fresh start for the next. */
export async function takeRedisStalls(redis: Redis): Promise<RedisStalls> {
  const replies = await redis.multi().call('LATENCY', 'HISTORY', 'aof-fsync-always').call('LATENCY', 'RESET').exec();
  const [error, history] = replies?.[0] ?? [new Error('no reply to LATENCY HISTORY'), undefined];
  if (error) throw error;
  const seconds = historySchema.parse(history);
  return { seconds: seconds.length, longestMs: Math.max(0, ...seconds.map(([, latencyMs]) => latencyMs)) };
}
