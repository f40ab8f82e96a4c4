import { env, loadConfig } from '@gateway/lib/config';
import { connectDatabase, migrateToLatest, type MigrationIndex } from '@gateway/lib/db';
import { AUTH_SCHEMA, authMigrations } from './index';

/**
 * `npm run migrate`: applies every pending migration of every schema to
 * DATABASE_URL and prints what it applied. Each service that owns tables
 * adds one entry to `schemas`.
 */
const schemas: Array<{ schema: string; migrations: MigrationIndex }> = [{ schema: AUTH_SCHEMA, migrations: authMigrations }];

async function migrateSchema(url: string, schema: string, migrations: MigrationIndex): Promise<void> {
  const database = connectDatabase<unknown>({ kind: 'postgres', url, poolSize: 1 }, schema);
  try {
    const applied = await migrateToLatest(database.db, schema, migrations);
    if (applied.length === 0) console.log(`schema ${schema}: up to date`);
    for (const name of applied) console.log(`schema ${schema}: applied ${name}`);
  } finally {
    await database.destroy();
  }
}

async function main(): Promise<void> {
  const { DATABASE_URL } = loadConfig({ DATABASE_URL: env.url() });
  for (const { schema, migrations } of schemas) await migrateSchema(DATABASE_URL, schema, migrations);
}

main().catch((error: unknown) => {
  // A config error names the variable; a failed migration names itself in its message.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
