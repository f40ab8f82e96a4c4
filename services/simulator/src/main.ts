import { runService } from '@gateway/lib/service';
import { simulatorConfigShape } from './config';

/** The simulator as its own process (lib's runService: env, telemetry first, serve, drain on SIGTERM). */
runService({
  name: 'simulator',
  configShape: simulatorConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry, so that their meters are the SDK's.
    const { loadCatalog } = await import('@gateway/lib/catalog');
    const { startSimulator } = await import('./server');

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
    return { port: simulator.port, stop: (graceMs) => simulator.close(graceMs) };
  },
});
