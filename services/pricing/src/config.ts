import { env } from '@gateway/lib/config';
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
};

export type PricingConfig = z.infer<z.ZodObject<typeof pricingConfigShape>>;
