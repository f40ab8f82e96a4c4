import { loadConfig } from '@gateway/lib/config';
import { startTelemetry } from '@gateway/lib/telemetry';
import { authConfigShape, settingsFrom } from './config';

/** The auth service as its own process: env, telemetry first, serve, drain on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig(authConfigShape);
  const telemetry = startTelemetry({ serviceName: 'auth' });

  // Loaded after telemetry so grpc-js and pg are instrumented.
  const { createLogger } = await import('@gateway/lib/logging');
  const { openServiceDatabase, pingDatabase } = await import('@gateway/lib/db');
  const { createRedis, pingRedis, reportConnectionErrors } = await import('@gateway/lib/redis');
  const { drainOnSignal } = await import('@gateway/lib/lifecycle');
  const { AUTH_SCHEMA, authMigrations } = await import('./db');
  const { RedisAttemptThrottle } = await import('./identity/throttle');
  const { createRedisInvalidator } = await import('./invalidation/invalidator');
  const { principalInvalidationChannels } = await import('@gateway/lib/principal-invalidation');
  const { startAuthServer } = await import('./server');

  const logger = createLogger({ service: 'auth', level: config.LOG_LEVEL });
  const database = await openServiceDatabase<import('./db').AuthDatabase>(
    { url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, schema: AUTH_SCHEMA, migrations: authMigrations, migrateOnStart: config.MIGRATE_ON_START },
    logger,
  );
  const redis = createRedis(config.REDIS_URL);
  const acknowledgements = createRedis(config.REDIS_URL, { name: 'auth-invalidation-acks' });
  reportConnectionErrors(redis, logger, 'commands');
  reportConnectionErrors(acknowledgements, logger, 'invalidation acknowledgements');
  const invalidator = createRedisInvalidator({
    publisher: redis,
    subscriber: acknowledgements,
    channels: principalInvalidationChannels(config.PRINCIPAL_EVENTS_PREFIX),
    timeoutMs: config.PRINCIPAL_INVALIDATION_TIMEOUT_MS,
    logger,
  });
  const server = await startAuthServer(
    { db: database.db, throttle: new RedisAttemptThrottle(redis), invalidator, settings: settingsFrom(config), logger },
    { host: config.HOST, port: config.PORT },
    [
      { name: 'postgres', check: () => pingDatabase(database.db) },
      { name: 'redis', check: () => pingRedis(redis) },
    ],
  );
  // The drain handler goes in before `listening` is logged: a supervisor may signal as soon as it reads that line.
  drainOnSignal(logger, async () => {
    await server.stop();
    invalidator.close();
    redis.disconnect();
    await database.destroy();
    await telemetry.shutdown();
  });
  const metrics = await telemetry.serveMetrics({ host: config.HOST, port: config.METRICS_PORT });
  logger.info({ port: server.grpc.port, metrics_port: metrics.port }, 'listening');
}

main().catch((error: unknown) => {
  // Config errors name the variable; anything else is printed for the operator.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
