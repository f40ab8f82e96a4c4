import { keepAliveConfigShape } from '@gateway/edge/config';
import { drainConfigShape, env } from '@gateway/lib/config';
import { z } from 'zod';

/** Environment of the embedded mode; everything has a default so `npm start` needs none. */
export const embeddedConfigShape = {
  HOST: z.string().default('127.0.0.1'),
  /** The public HTTP port (edge). The gRPC services take free ports of their own. */
  PORT: env.port(8080),
  ...keepAliveConfigShape,
  /**
   * Prometheus metrics (`GET /metrics`) of the whole process. Any free port by
   * default, printed at start: `npm start` must not fail on a port another
   * local tool holds (9464 is every OpenTelemetry exporter's default).
   */
  METRICS_PORT: env.port(0),
  /** PGlite's data and the locally generated secrets live here. */
  DATA_DIR: z.string().default('.data'),
  LOG_LEVEL: env.logLevel(),
  /** SIGTERM or Ctrl-C: no balancer sends to a local process, so no delay; requests in flight (an agent chat: 180 s) finish. */
  ...drainConfigShape(180_000, 0),
};
