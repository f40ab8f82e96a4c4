import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** Environment of the simulator, checked at start (fail fast, by name). */
export const simulatorConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(8090),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  /** Added before every chat answer (before the first byte of a stream). */
  LATENCY_MS: milliseconds(0),
  /** A uniform random 0..N ms on top of LATENCY_MS. */
  LATENCY_JITTER_MS: milliseconds(0),
  /** Fraction (0..1) of chat requests answered with a 500. */
  FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  /** Pause between two chunks of a stream. */
  STREAM_CHUNK_DELAY_MS: milliseconds(0),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. A stream with a chunk delay can take a while; a minute covers the tests' and benchmarks' longest. */
  ...drainConfigShape(60_000),
};

export type SimulatorConfig = z.infer<z.ZodObject<typeof simulatorConfigShape>>;
