import { loadConfig } from '@gateway/lib/config';
import { startTelemetry } from '@gateway/lib/telemetry';
import { settingsFrom, usageConfigShape } from './config';

/** The usage service as its own process: env, telemetry first, serve, drain on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig(usageConfigShape);
  const telemetry = startTelemetry({ serviceName: 'usage' });

  // Loaded after telemetry so grpc-js and pg are instrumented.
  const { createLogger } = await import('@gateway/lib/logging');
  const { connectDatabase } = await import('@gateway/lib/db');
  const { drainOnSignal } = await import('@gateway/lib/lifecycle');
  const { TRACES_SCHEMA, checkTracesReadable } = await import('./db/traces');
  const { startUsageServer } = await import('./server');

  const logger = createLogger({ service: 'usage', level: config.LOG_LEVEL });
  const database = connectDatabase<import('./db/traces').TracesDatabase>(
    { kind: 'postgres', url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, logger },
    TRACES_SCHEMA,
  );
  const server = await startUsageServer(
    { db: database.db, settings: settingsFrom(config), logger },
    { host: config.HOST, port: config.PORT },
    // Serving means able to answer: the ledger's migration is applied and the login may act as its reader role.
    [{ name: 'postgres', check: () => checkTracesReadable(database.db) }],
  );
  // The drain handler goes in before `listening` is logged: a supervisor may signal as soon as it reads that line.
  drainOnSignal(logger, async () => {
    await server.stop();
    await database.destroy();
    await telemetry.shutdown();
  });
  const metrics = await telemetry.serveMetrics({ host: config.HOST, port: config.METRICS_PORT });
  logger.info({ port: server.grpc.port, metrics_port: metrics.port, scan_cap: config.SCAN_CAP }, 'listening');
}

main().catch((error: unknown) => {
  // Config errors name the variable; anything else is printed for the operator.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
