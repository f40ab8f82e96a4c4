import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { DomainError } from '../errors';
import type { Logger } from '../logging';
import { connectDatabase, type Database } from './connect';

/**
 * Migrations are plain modules listed in an index, frozen once released
 * (Kysely's recommendation): never edit one, add the next.
 */
export type MigrationIndex = Record<string, Migration>;

const MIGRATION_TABLE = 'kysely_migration';
const LOCK_TABLE = 'kysely_migration_lock';

function migratorFor<DB>(db: Kysely<DB>, schema: string, migrations: MigrationIndex): Migrator {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };
  return new Migrator({
    db: db as Kysely<unknown>,
    provider,
    migrationTableSchema: schema,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: LOCK_TABLE,
  });
}

/** Creates the schema if needed and applies every pending migration, in name order. */
export async function migrateToLatest<DB>(db: Kysely<DB>, schema: string, migrations: MigrationIndex): Promise<string[]> {
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const { error, results = [] } = await migratorFor(db, schema, migrations).migrateToLatest();
  if (error) throw error;
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Names of the migrations that have not been applied to this database. */
export async function pendingMigrations<DB>(db: Kysely<DB>, schema: string, migrations: MigrationIndex): Promise<string[]> {
  const exists = await sql<{ present: boolean }>`
    select to_regclass(${`${schema}.${MIGRATION_TABLE}`}) is not null as present`.execute(db);
  if (!exists.rows[0]?.present) return Object.keys(migrations).sort();
  const infos = await migratorFor(db, schema, migrations).getMigrations();
  return infos.filter((info) => info.executedAt === undefined).map((info) => info.name);
}

/**
 * Postgres reports a missing table as 42P01. A service that hits it answers
 * 503 naming the migration it lacks, never an empty result (docs/api.md#authentication).
 */
export function isUndefinedTable(error: unknown): boolean {
  return sqlStateOf(error) === '42P01';
}

/** The SQLSTATE code of a Postgres (or PGlite) error, if it is one. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export function missingMigration(schema: string, migrationName: string, cause: unknown): DomainError {
  return new DomainError(
    'unavailable',
    `The database lacks migration "${migrationName}" of schema "${schema}". Run "npm run migrate".`,
    { cause, internalReason: 'missing migration' },
  );
}

export interface ServiceDatabaseOptions {
  url: string;
  poolSize: number;
  schema: string;
  migrations: MigrationIndex;
  /** Apply pending migrations now (local runs and tests); a deployment runs them as an init step. */
  migrateOnStart: boolean;
}

/** A service's own schema on Postgres, migrated first when asked, with what was applied reported. */
export async function openServiceDatabase<DB>(
  { url, poolSize, schema, migrations, migrateOnStart }: ServiceDatabaseOptions,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<Database<DB>> {
  const database = connectDatabase<DB>({ kind: 'postgres', url, poolSize, logger }, schema);
  if (migrateOnStart) {
    const applied = await migrateToLatest(database.db, schema, migrations);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  return database;
}
