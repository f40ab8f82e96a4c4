import { loadConfig } from '@gateway/lib/config';
import { startTelemetry } from '@gateway/lib/telemetry';
import { simulatorConfigShape } from './config';

/** The simulator as its own process: env, telemetry first, serve, drain on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig(simulatorConfigShape);
  const telemetry = startTelemetry({ serviceName: 'simulator' });

  // Loaded after telemetry so node:http is instrumented.
  const { createLogger } = await import('@gateway/lib/logging');
  const { loadCatalog } = await import('@gateway/lib/catalog');
  const { drainOnSignal } = await import('@gateway/lib/lifecycle');
  const { startSimulator } = await import('./server');

  const logger = createLogger({ service: 'simulator', level: config.LOG_LEVEL });
  const simulator = await startSimulator({
    host: config.HOST,
    port: config.PORT,
    latencyMs: config.LATENCY_MS,
    latencyJitterMs: config.LATENCY_JITTER_MS,
    failureRate: config.FAILURE_RATE,
    streamChunkDelayMs: config.STREAM_CHUNK_DELAY_MS,
    catalog: loadCatalog(),
    logger,
  });
  logger.info({ port: simulator.port }, 'listening');

  drainOnSignal(logger, async () => {
    await simulator.close();
    await telemetry.shutdown();
  });
}

main().catch((error: unknown) => {
  // Config errors name the variable; anything else is printed for the operator.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
