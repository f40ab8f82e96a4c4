import { loadConfig } from '@gateway/lib/config';
import { startTelemetry } from '@gateway/lib/telemetry';
import { routerConfigShape } from './config';

/** The router service as its own process: env, telemetry first, catalog, serve, drain on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig(routerConfigShape);
  const telemetry = startTelemetry({ serviceName: 'router' });

  // Loaded after telemetry so grpc-js is instrumented.
  const { createLogger } = await import('@gateway/lib/logging');
  const { loadCatalog } = await import('@gateway/lib/catalog');
  const { drainOnSignal } = await import('@gateway/lib/lifecycle');
  const { startRouterServer } = await import('./server');

  const logger = createLogger({ service: 'router', level: config.LOG_LEVEL });
  const catalog = loadCatalog(config.CATALOG_PATH);
  const server = await startRouterServer({ catalog, logger }, { host: config.HOST, port: config.PORT }, []);
  // The drain handler goes in before `listening` is logged: a supervisor may signal as soon as it reads that line.
  drainOnSignal(logger, async () => {
    await server.stop();
    await telemetry.shutdown();
  });
  const metrics = await telemetry.serveMetrics({ host: config.HOST, port: config.METRICS_PORT });
  logger.info({ port: server.grpc.port, metrics_port: metrics.port, catalog: catalog.version }, 'listening');
}

main().catch((error: unknown) => {
  // Config and catalog errors name the variable or the field; anything else is printed for the operator.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
