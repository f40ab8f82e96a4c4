import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import { runService } from '@gateway/lib/service';
import { ledgerConfigShape } from './config';

/** How long a fresh process waits for Redis before serving anyway (health says NOT_SERVING until it answers). */
const FIRST_CONNECTION_TIMEOUT_MS = 2000;

/** The ledger service as its own process (lib's runService: env, telemetry first, serve and write, drain on SIGTERM). */
runService({
  name: 'ledger',
  configShape: ledgerConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js and pg are instrumented.
    const { DEFAULT_CATALOG_PATH, loadCatalog, watchCatalogFile } = await import('@gateway/lib/catalog');
    const { openServiceDatabase, pingDatabase } = await import('@gateway/lib/db');
    const { createRedis, pingRedis, reportConnectionErrors } = await import('@gateway/lib/redis');
    const { LEDGER_SCHEMA, ledgerMigrations } = await import('./db');
    const { RedisQuotaStore, RedisRecordQueue, catalogInForce, firstConnection, ledgerKeys, redisAllowanceChanges } = await import('./stores');
    const { startLedgerServer } = await import('./server');

    const catalogPath = config.CATALOG_PATH ?? DEFAULT_CATALOG_PATH;
    const catalog = catalogInForce(loadCatalog(catalogPath));
    const database = await openServiceDatabase<import('./db').LedgerDatabase>(
      { url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, schema: LEDGER_SCHEMA, migrations: ledgerMigrations, migrateOnStart: config.MIGRATE_ON_START },
      logger,
    );
    const keys = ledgerKeys(config.REDIS_KEY_PREFIX);
    const redis = createRedis(config.REDIS_URL, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
    // Blocking stream reads hold a connection; RPCs must not queue behind them.
    const streamReader = createRedis(config.REDIS_URL);
    // A subscribed connection can do nothing else: allowance changes have their own.
    const subscriber = createRedis(config.REDIS_URL);
    reportConnectionErrors(redis, logger, 'commands');
    reportConnectionErrors(streamReader, logger, 'stream reader');
    reportConnectionErrors(subscriber, logger, 'allowance changes');
    const quota = new RedisQuotaStore(redis, keys);
    const allowanceChanges = redisAllowanceChanges(subscriber, keys.allowanceChanges, logger, () => quota.announce(EVERY_ORGANIZATION));
    await Promise.all([redis, streamReader, subscriber].map((connection) => firstConnection(connection, FIRST_CONNECTION_TIMEOUT_MS)));
    // WatchLeases streams opened once the port is up hear every change from then on.
    await allowanceChanges.subscribed();

    // A plan's limit changed: leases were sized by the old one, so every holder gives back and asks anew.
    const stopWatching = watchCatalogFile(catalogPath, logger, (next) => {
      if (!catalog.replace(next)) return;
      logger.info({ catalog: next.version }, 'catalog in force: plan limits changed, every lease holder asks anew');
      quota.announce(EVERY_ORGANIZATION).catch((error: unknown) => {
        logger.warn({ err: error }, 'could not announce the catalog change; leases take the new limits as they are renewed');
      });
    });
    const server = await startLedgerServer(
      {
        db: database.db,
        quota,
        queue: new RedisRecordQueue(streamReader, keys),
        catalog,
        allowanceChanges,
        logger,
        settings: {
          reservationTtlSeconds: config.RESERVATION_TTL_SECONDS,
          lease: { ttlMs: config.LEASE_TTL_MS, shareDivisor: config.LEASE_SHARE_DIVISOR, reclaimWaitMs: config.LEASE_RECLAIM_WAIT_MS },
          writer: {
            batchSize: config.WRITER_BATCH_SIZE,
            blockMs: config.WRITER_BLOCK_MS,
            lingerMs: config.WRITER_LINGER_MS,
            claimIdleMs: config.WRITER_CLAIM_IDLE_MS,
          },
        },
      },
      { host: config.HOST, port: config.PORT },
      [
        { name: 'postgres', check: () => pingDatabase(database.db) },
        { name: 'redis', check: () => pingRedis(redis) },
      ],
    );
    return {
      port: server.grpc.port,
      announce: { catalog: catalog.current().version },
      stop: async (graceMs) => {
        stopWatching();
        await server.stop(graceMs);
      },
      close: async () => {
        redis.disconnect();
        streamReader.disconnect();
        subscriber.disconnect();
        await database.destroy();
      },
    };
  },
});
