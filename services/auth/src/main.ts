import { runService } from '@gateway/lib/service';
import { authConfigShape, settingsFrom } from './config';

/** The auth service as its own process (lib's runService: env, telemetry first, serve, drain on SIGTERM). */
runService({
  name: 'auth',
  configShape: authConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js and pg are instrumented.
    const { openServiceDatabase, pingDatabase } = await import('@gateway/lib/db');
    const { createRedis, pingRedis, reportConnectionErrors } = await import('@gateway/lib/redis');
    const { AUTH_SCHEMA, authMigrations } = await import('./db');
    const { RedisAttemptThrottle } = await import('./identity/throttle');
    const { createRedisInvalidator } = await import('./invalidation/invalidator');
    const { principalInvalidationChannels } = await import('@gateway/lib/principal-invalidation');
    const { startAuthServer } = await import('./server');

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
    return {
      port: server.grpc.port,
      stop: (graceMs) => server.stop(graceMs),
      close: async () => {
        invalidator.close();
        redis.disconnect();
        await database.destroy();
      },
    };
  },
});
