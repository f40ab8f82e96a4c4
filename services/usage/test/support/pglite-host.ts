import { PGlite } from '@electric-sql/pglite';
import { LEDGER_SCHEMA, ledgerMigrations, type LedgerDatabase } from '@gateway/ledger/db';
import { loadConfig } from '@gateway/lib/config';
import { connectDatabase, migrateToLatest } from '@gateway/lib/db';
import { createLogger } from '@gateway/lib/logging';
import { TRACES_SCHEMA, settingsFrom, startUsageServer, usageSettingsShape, type TracesDatabase } from '../../src/server';
import { insertTraces, runAsReader, type TraceSeed } from './traces';

/**
 * The usage service as the embedded mode runs it, on an in-memory PGlite,
 * for suites that cannot load PGlite themselves (jest's module sandbox).
 * Two servers share the database: the default scan cap and SCAN_CAP (the
 * environment variable). The suite seeds and runs statements over IPC.
 */
export type HostCommand = { kind: 'insert'; rows: TraceSeed[] } | { kind: 'as-reader'; statement: string };
export type HostRequest = HostCommand & { id: number };
export interface HostReply {
  id: number;
  error?: string;
}

async function main(): Promise<void> {
  const pglite = new PGlite();
  const ledger = connectDatabase<LedgerDatabase>({ kind: 'pglite', pglite }, LEDGER_SCHEMA);
  await migrateToLatest(ledger.db, LEDGER_SCHEMA, ledgerMigrations);
  const traces = connectDatabase<TracesDatabase>({ kind: 'pglite', pglite }, TRACES_SCHEMA);
  const logger = createLogger({ service: 'usage', level: 'info' });
  const defaults = settingsFrom(loadConfig(usageSettingsShape, {}));
  const configured = settingsFrom(loadConfig(usageSettingsShape));
  const [standard, capped] = await Promise.all(
    [defaults, configured].map((settings) => startUsageServer({ db: traces.db, settings, logger }, { host: '127.0.0.1', port: 0 }, [])),
  );
  process.on('message', (request: HostRequest) => {
    const work = request.kind === 'insert' ? insertTraces(ledger.db, request.rows) : runAsReader(ledger.db, request.statement);
    work.then(
      () => process.send?.({ id: request.id } satisfies HostReply),
      (error: unknown) => process.send?.({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies HostReply),
    );
  });
  process.once('disconnect', () => {
    void Promise.all([standard?.stop(), capped?.stop()]).then(() => pglite.close()).then(() => process.exit(0));
  });
  logger.info({ port: standard?.grpc.port, capped_port: capped?.grpc.port }, 'listening');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
