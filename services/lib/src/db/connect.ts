import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Dialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { Pool, types } from 'pg';
import type { Logger } from '../logging';

// bigint columns (money, counters) arrive as strings, never as lossy numbers;
// timestamptz arrives as Date.
types.setTypeParser(types.builtins.INT8, (value) => value);

/** Where a service's tables live: a real Postgres, or PGlite in the embedded mode. */
export type DatabaseTarget =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /** Told when Postgres closes an idle pooled connection (a restart, a terminated backend). */
      logger?: Pick<Logger, 'warn'>;
    }
  | { kind: 'pglite'; pglite: PGlite };

export interface Database<DB> {
  /** Queries are scoped to the service's own schema. */
  db: Kysely<DB>;
  schema: string;
  destroy(): Promise<void>;
}

function dialectFor(target: DatabaseTarget): Dialect {
  if (target.kind === 'pglite') return new PGliteDialect(target.pglite);
  const pool = new Pool({ connectionString: target.url, max: target.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // Without a listener, an idle connection closed by the server (a Postgres
  // restart, a terminated backend) is an unhandled 'error' event that ends
  // the process. The pool has already dropped that connection; the next query
  // opens a new one, and a lasting outage fails that query and the health check.
  pool.on('error', (error) => target.logger?.warn({ err: error.message }, 'postgres closed an idle connection'));
  return new PostgresDialect({ pool });
}

/**
 * PGlite is one connection. Its dialect queues callers per driver, so every
 * service of the embedded process must share one driver: a second one would
 * interleave statements of two transactions on the same connection.
 */
const pgliteRoots = new WeakMap<PGlite, Kysely<unknown>>();

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
