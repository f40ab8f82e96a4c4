import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';
import { DEFAULT_KEY_PREFIX } from './redis/keys';

/** Environment of the ledger service, checked at start (fail fast, by name). */
export const ledgerConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(50054),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  DATABASE_URL: env.url(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  REDIS_URL: env.url(),
  /** Namespace of every Redis key (counters, holds, the record stream). */
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]+$/, 'letters, digits and : _ -').default(DEFAULT_KEY_PREFIX),
  /** The model catalog and plans; the file shipped in services/lib/catalog by default. */
  CATALOG_PATH: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  /** Apply pending migrations at start (the local stack and tests); deploy runs them as an init step. */
  MIGRATE_ON_START: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /**
   * How long the ledger waits for Redis to answer a command (a settlement included) before it
   * gives up on it. A settlement it gives up on may still commit within its commit window, and
   * its Record then says not accepted for a committed record: keep this above the longest
   * commit window callers ask for (edge's RECORD_DEADLINE_MS, 250 ms by default).
   */
  REDIS_COMMAND_TIMEOUT_MS: env.positiveInt(1000),
  /** Reservations Record never settles free their amount after this long. */
  RESERVATION_TTL_SECONDS: env.positiveInt(600),
  /**
   * How long a lease (a holder's slice of an allowance) stays held after each Lease answer that
   * leaves one: a holder that stops renewing (an edge replica that died) gives its slice back this
   * long after its last ask.
   */
  LEASE_TTL_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * A lease grant beyond the waiting call's need is at most what is left of the allowance divided
   * by this, so the slices shrink near the end and the last of an allowance is not stranded in one holder.
   */
  LEASE_SHARE_DIVISOR: z.coerce.number().int().min(1).max(1000).default(4),
  /**
   * How long a Lease the allowance left cannot cover, while other holders hold slices of it, waits
   * for them to give back what they hold unused before it is refused (0: it is refused at once).
   * Below edge's RPC_DEADLINE_MS.
   */
  LEASE_RECLAIM_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(200),
  /** Records per Postgres transaction. */
  WRITER_BATCH_SIZE: z.coerce.number().int().min(1).max(2000).default(500),
  /** How long one stream read waits; below the stream reader's Redis command timeout (1 s). */
  WRITER_BLOCK_MS: z.coerce.number().int().min(1).max(900).default(100),
  /** After a short batch, how long the next may gather before the writer reads again (0: read at once). */
  WRITER_LINGER_MS: z.coerce.number().int().min(0).max(5000).default(200),
  /** Records left pending this long by a dead writer are taken over. */
  WRITER_CLAIM_IDLE_MS: env.positiveInt(30_000),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. Its callers' deadlines are at most a few seconds; 30 s covers them with room. */
  ...drainConfigShape(30_000),
};
