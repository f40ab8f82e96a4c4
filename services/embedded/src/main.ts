import { mkdirSync } from 'node:fs';
import { loadConfig } from '@gateway/lib/config';
import { startTelemetry } from '@gateway/lib/telemetry';
import { embeddedConfigShape } from './config';

/**
 * `npm start`: every service in this one process, each still on its own
 * gRPC port and talking to the others over real gRPC, on PGlite in DATA_DIR
 * and in-process stand-ins for Redis, with the built-in simulator as the
 * model provider. Nothing to install or configure.
 */
async function main(): Promise<void> {
  const config = loadConfig(embeddedConfigShape);
  const telemetry = startTelemetry({ serviceName: 'gateway-embedded' });

  // Loaded after telemetry, so that their meters are the SDK's.
  const { startEmbedded } = await import('./embedded');
  const { drainOnSignal } = await import('@gateway/lib/lifecycle');
  mkdirSync(config.DATA_DIR, { recursive: true });
  const { ensureConsoleBuilt } = await import('./console-build');
  await ensureConsoleBuilt((line) => process.stdout.write(`${line}\n`));
  const embedded = await startEmbedded(config);
  drainOnSignal(
    embedded.logger,
    { stop: () => embedded.stop(), close: () => telemetry.shutdown() },
    { delayMs: config.DRAIN_DELAY_MS, timeoutMs: config.DRAIN_TIMEOUT_MS },
  );
  const metrics = await telemetry.serveMetrics({ host: config.HOST, port: config.METRICS_PORT });
  embedded.logger.info({ port: embedded.port, metrics_port: metrics.port }, 'listening');
  embedded.printWelcome(`http://${config.HOST}:${metrics.port}/metrics`);
}

/** A port someone else holds: say which setting moves it, since the bare EADDRINUSE names none. */
function portInUseHint(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') return undefined;
  const port = (error as Error & { port?: number }).port;
  const setting = port !== undefined && String(port) === process.env.METRICS_PORT ? 'METRICS_PORT' : 'PORT';
  return `Port ${port ?? ''} is already in use. Set ${setting} to a free port, e.g. ${setting}=${(port ?? 8080) + 1} npm start (${setting}=0 takes any free one).`;
}

main().catch((error: unknown) => {
  console.error(portInUseHint(error) ?? (error instanceof Error ? error.message : error));
  process.exit(1);
});
