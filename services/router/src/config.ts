import { env } from '@gateway/lib/config';
import { z } from 'zod';

/** Environment of the router service, checked at start (fail fast, by name). */
export const routerConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  PORT: env.port(50052),
  /** Prometheus scrapes `GET /metrics` here (0: any free port, named in the `listening` line). */
  METRICS_PORT: env.metricsPort(),
  /** The catalog and plans file; the one shipped with the code when unset. */
  CATALOG_PATH: z.string().min(1).optional(),
  LOG_LEVEL: env.logLevel(),
};

export type RouterConfig = z.infer<z.ZodObject<typeof routerConfigShape>>;
