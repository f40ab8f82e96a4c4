import type { RedisPersistence } from '../../support/redis-server';
import { startHelperProcess, type HelperProcess } from './helper-process';
import { startPrivateRedis, type PrivateRedis } from './redis-server';

/**
 * The hot path's floor as `npm run bench:compare` runs it: a Redis of its
 * own, the bare ledger on it (floor-ledger.ts) and bare edge replicas in
 * front (floor-edge.ts), each its own process.
 */
export interface HotPathFloor {
  /** Where the edge replicas listen, one origin each. */
  origins: string[];
  /** Every process of the floor by name, for the CPU windows. */
  processes: Record<string, number[]>;
  stop(): Promise<void>;
}

export interface FloorOptions {
  upstreamOrigin: string;
  servedModel: string;
  edgeReplicas: number;
  /** Its Redis persists as the stack's does: the record's durability costs both the same. */
  redisPersistence: RedisPersistence;
  /** Node options for its edges and its ledger (a profiler's). */
  nodeArgs?: readonly string[];
}

export async function startHotPathFloor({ upstreamOrigin, servedModel, edgeReplicas, redisPersistence, nodeArgs = [] }: FloorOptions): Promise<HotPathFloor> {
  const started: HelperProcess[] = [];
  let redis: PrivateRedis | undefined;
  const stop = async () => {
    await Promise.all(started.map((each) => each.stop()));
    await redis?.stop();
  };
  try {
    redis = await startPrivateRedis(redisPersistence);
    const ledger = await startHelperProcess('test/bench/support/floor-ledger.ts', { REDIS_URL: redis.url }, nodeArgs);
    started.push(ledger);
    const edges: HelperProcess[] = [];
    for (let replica = 0; replica < edgeReplicas; replica += 1) {
      const edge = await startHelperProcess(
        'test/bench/support/floor-edge.ts',
        {
          UPSTREAM_ORIGIN: upstreamOrigin,
          LEDGER_ADDRESS: `127.0.0.1:${ledger.port}`,
          SERVED_MODEL: servedModel,
        },
        nodeArgs,
      );
      started.push(edge);
      edges.push(edge);
    }
    return {
      origins: edges.map(({ port }) => `http://127.0.0.1:${port}`),
      processes: {
        ...Object.fromEntries(edges.map(({ pid }, index) => [`floor edge#${index + 1}`, [pid]])),
        'floor ledger': [ledger.pid],
        'floor redis': [redis.pid],
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
