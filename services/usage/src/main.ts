import { runService } from '@gateway/lib/service';
import { settingsFrom, usageConfigShape } from './config';

/** The usage service as its own process (lib's runService: env, telemetry first, serve, drain on SIGTERM). */
runService({
  name: 'usage',
  configShape: usageConfigShape,
  async start(config, { logger }) {
    // Loaded after telemetry so grpc-js and pg are instrumented.
    const { connectDatabase } = await import('@gateway/lib/db');
    const { TRACES_SCHEMA, checkTracesReadable } = await import('./db/traces');
    const { startUsageServer } = await import('./server');

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
    return {
      port: server.grpc.port,
      announce: { scan_cap: config.SCAN_CAP },
      stop: (graceMs) => server.stop(graceMs),
      close: () => database.destroy(),
    };
  },
});
