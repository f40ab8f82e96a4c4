import type { z } from 'zod';
import { loadConfig } from './config';
import { startTelemetry, type Telemetry } from './telemetry';

/**
 * The one shape of every service's `main.ts`: read the environment, start
 * telemetry before anything that makes metrics is loaded, start the service,
 * install the drain on SIGTERM, serve metrics, then log `listening`. A
 * service supplies only what is its own: its name, its config and how it
 * starts.
 */

/** What every service's config has, whatever else it reads (drainConfigShape gives the DRAIN_ pair). */
export interface BaseServiceConfig {
  HOST: string;
  METRICS_PORT: number;
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  DRAIN_DELAY_MS: number;
  DRAIN_TIMEOUT_MS: number;
}

export interface StartedService {
  /** The port it serves on (port 0 resolved). */
  port: number;
  /** Extra fields for the `listening` line (catalog version, limits). */
  announce?: Record<string, unknown>;
  /** Stops accepting and lets in-flight requests and streams finish, cutting them after graceMs. */
  stop(graceMs: number): Promise<void>;
  /** Then closes what the service opened (databases, Redis, clients). */
  close?(): Promise<void>;
}

export interface ServiceMain<Shape extends z.ZodRawShape> {
  /** The service's name: its logs' `service` field and its telemetry's default service.name. */
  name: string;
  configShape: Shape;
  /**
   * Loads the service's modules and starts it. It runs after telemetry, so
   * the meters its modules ask for are the SDK's (one asked for earlier stays
   * a no-op): import them here (`await import(...)`), never at the top of main.ts.
   */
  start(config: z.infer<z.ZodObject<Shape>>, context: { logger: import('pino').Logger }): Promise<StartedService>;
}

async function run<Shape extends z.ZodRawShape>(main: ServiceMain<Shape>, config: z.infer<z.ZodObject<Shape>> & BaseServiceConfig): Promise<void> {
  const telemetry: Telemetry = startTelemetry({ serviceName: main.name });
  const { createLogger } = await import('./logging');
  const { drainOnSignal } = await import('./lifecycle');
  const logger = createLogger({ service: main.name, level: config.LOG_LEVEL });
  const service = await main.start(config, { logger });
  // The drain handler goes in before `listening` is logged: a supervisor may signal as soon as it reads that line.
  drainOnSignal(
    logger,
    {
      stop: (graceMs) => service.stop(graceMs),
      close: async () => {
        await service.close?.();
        await telemetry.shutdown();
      },
    },
    { delayMs: config.DRAIN_DELAY_MS, timeoutMs: config.DRAIN_TIMEOUT_MS },
  );
  const metrics = await telemetry.serveMetrics({ host: config.HOST, port: config.METRICS_PORT });
  logger.info({ port: service.port, metrics_port: metrics.port, ...service.announce }, 'listening');
}

/** Runs a service as its own process; a failure to start is printed (config errors name the variable, never its value) and exits 1. */
export function runService<Shape extends z.ZodRawShape & BaseServiceShape>(main: ServiceMain<Shape>): void {
  Promise.resolve()
    // The shape declares BaseServiceConfig's variables, so what it parses has them.
    .then(() => run(main, loadConfig(main.configShape) as z.infer<z.ZodObject<Shape>> & BaseServiceConfig))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}

/** The variables of BaseServiceConfig, as a service's shape must declare them. */
type BaseServiceShape = { [K in keyof BaseServiceConfig]: z.ZodType<BaseServiceConfig[K], unknown> };
