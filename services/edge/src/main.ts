import { loadConfig } from '@gateway/lib/config';
import { startTelemetry } from '@gateway/lib/telemetry';
import { edgeConfigShape, settingsFrom } from './config';

/** The edge service as its own process: env, telemetry first, serve, drain on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig(edgeConfigShape);
  const telemetry = startTelemetry({ serviceName: 'edge', incomingContext: 'new-trace' });

  // Loaded after telemetry so http and grpc-js are instrumented.
  const { createLogger } = await import('@gateway/lib/logging');
  const { createPromiseClient } = await import('@gateway/lib/grpc');
  const { drainOnSignal } = await import('@gateway/lib/lifecycle');
  const { AuthServiceService } = await import('@gateway/proto/gen/gateway/auth/v1/auth');
  const { grpcHealthProbe } = await import('./health/grpc-health');
  const { createEdgeApp } = await import('./server');

  const logger = createLogger({ service: 'edge', level: config.LOG_LEVEL });
  const auth = createPromiseClient(AuthServiceService, {
    serviceName: 'auth',
    address: config.AUTH_ADDRESS,
    deadlineMs: config.RPC_DEADLINE_MS,
  });
  const authHealth = grpcHealthProbe('auth', config.AUTH_ADDRESS, config.RPC_DEADLINE_MS);
  const edge = createEdgeApp({ auth, readiness: [authHealth], settings: settingsFrom(config), logger });
  const port = await edge.start({ host: config.HOST, port: config.PORT });
  logger.info({ port }, 'listening');

  drainOnSignal(logger, async () => {
    await edge.stop();
    auth.close();
    authHealth.close();
    await telemetry.shutdown();
  });
}

main().catch((error: unknown) => {
  // Config errors name the variable; anything else is printed for the operator.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
