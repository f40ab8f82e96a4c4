import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Dialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { Pool, types } from 'pg';
import type { Logger } from '../logging';
import type { PGliteQueries } from './pglite-thread';
import { gatewayMeter } from '../metrics';

// bigint columns (money, counters) arrive as strings, never as lossy numbers;
// timestamptz arrives as Date.
types.setTypeParser(types.builtins.INT8, (value) => value);

/** Where a service's tables live: a real Postgres, or PGlite in the embedded mode. */
export type DatabaseTarget =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /** Told when Postgres closes a pooled connection (a restart, a terminated backend). */
      logger?: Pick<Logger, 'warn'>;
    }
  | { kind: 'pglite'; pglite: PGliteQueries };

export interface Database<DB> {
  /** Queries are scoped to the service's own schema. */
  db: Kysely<DB>;
  schema: string;
  destroy(): Promise<void>;
}

/** How often at most a pool logs lost connections; the rest are counted in the line that follows. */
const LOST_CONNECTION_LOG_INTERVAL_MS = 60_000;

/**
 * Counts every connection Postgres closed, and logs the first at warn and
 * then at most one line a minute with the number since the last: a restart
 * or a failover ends every connection of the pool at once, and an operator
 * ending backends in a loop would otherwise fill the log.
 */
function lostConnectionReporter(logger: Pick<Logger, 'warn'> | undefined): (reason: string) => void {
  const lost = gatewayMeter().createCounter('db.connections.lost', {
    description: 'Pooled Postgres connections the server closed (restart, failover, terminated backend).',
  });
  let loggedAtMs = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return (reason) => {
    lost.add(1);
    const nowMs = Date.now();
    if (nowMs - loggedAtMs < LOST_CONNECTION_LOG_INTERVAL_MS) {
      unlogged += 1;
      return;
    }
    logger?.warn({ err: reason, also_lost_since_last_line: unlogged }, 'postgres closed a connection');
    loggedAtMs = nowMs;
    unlogged = 0;
  };
}

function dialectFor(target: DatabaseTarget): Dialect {
  // The dialect only ever calls `query`, which a PGlite on its own thread offers too (pglite-thread.ts).
  if (target.kind === 'pglite') return new PGliteDialect(target.pglite as PGlite);
  const reportLost = lostConnectionReporter(target.logger);
  const pool = new Pool({ connectionString: target.url, max: target.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // Postgres may end a connection at any moment (a restart, a failover, a
  // terminated backend). A pg client then emits 'error', and an 'error' event
  // without a listener ends the process. The pool listens only while a client
  // is idle; a client checked out for a query or a transaction gets its own
  // listener here, for its whole life. The statement in flight fails on its own.
  //
  // A FATAL error (57P01 on a terminated backend) reaches the statement in
  // flight, but the client stays queryable until the socket closes a moment
  // later, and a client released in that moment would go back to the pool and
  // fail the next caller. Ending the client at once makes the pool discard it
  // on release; the next query opens a new connection.
  pool.on('connect', (client) => {
    let lost = false;
    const connectionLost = (reason: string) => {
      if (lost) return;
      lost = true;
      reportLost(reason);
      void client.end().catch(() => undefined);
    };
    client.on('error', (error) => connectionLost(error.message));
    client.connection.on('errorMessage', (message: { severity?: string; message?: string }) => {
      if (message.severity === 'FATAL') connectionLost(message.message ?? 'fatal error');
    });
  });
  // The same error reaches the pool for an idle client: the client's own listener has handled it.
  pool.on('error', () => undefined);
  return new PostgresDialect({ pool });
}

/**
 * PGlite is one connection. Its dialect queues callers per driver, so every
 * service of the embedded process must share one driver: a second one would
 * interleave statements of two transactions on the same connection.
 */
const pgliteRoots = new WeakMap<PGliteQueries, Kysely<unknown>>();

function rootFor<DB>(target: DatabaseTarget): Kysely<DB> {
  if (target.kind === 'postgres') return new Kysely<DB>({ dialect: dialectFor(target) });
  let root = pgliteRoots.get(target.pglite);
  if (!root) {
    root = new Kysely<unknown>({ dialect: dialectFor(target) });
    pgliteRoots.set(target.pglite, root);
  }
  return root as Kysely<DB>;
}

export function connectDatabase<DB>(target: DatabaseTarget, schema: string): Database<DB> {
  const root = rootFor<DB>(target);
  return {
    db: root.withSchema(schema),
    schema,
    // A shared PGlite belongs to whoever created it; only a pool is ours to end.
    destroy: () => (target.kind === 'postgres' ? root.destroy() : Promise.resolve()),
  };
}

export async function pingDatabase<DB>(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
