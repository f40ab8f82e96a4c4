import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';

/** Environment of the pricing service, checked at start (fail fast, by name). */
export const pricingConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(50053),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  /** The catalog and plans file; the one shipped with the code when unset. */
  CATALOG_PATH: z.string().min(1).optional(),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM: DRAIN_DELAY_MS not ready but serving, then DRAIN_TIMEOUT_MS for in-flight work. Its callers' deadlines are at most a few seconds; 30 s covers them with room. */
  ...drainConfigShape(30_000),
};

export type PricingConfig = z.infer<z.ZodObject<typeof pricingConfigShape>>;
