import { env, loadConfig } from '../config';
import { connectDatabase } from './connect';
import { migrateToLatest, type MigrationIndex } from './migrate';

/**
 * The body of each service's migrate command (`npm run migrate` runs them
 * all): applies the service's pending migrations to DATABASE_URL and prints
 * what it applied. Deploy runs the same command as an init step.
 */
export function runMigrationCli(schema: string, migrations: MigrationIndex): void {
  const migrate = async () => {
    const { DATABASE_URL } = loadConfig({ DATABASE_URL: env.url() });
    const database = connectDatabase<unknown>({ kind: 'postgres', url: DATABASE_URL, poolSize: 1 }, schema);
    try {
      const applied = await migrateToLatest(database.db, schema, migrations);
      if (applied.length === 0) console.log(`schema ${schema}: up to date`);
      for (const name of applied) console.log(`schema ${schema}: applied ${name}`);
    } finally {
      await database.destroy();
    }
  };
  migrate().catch((error: unknown) => {
    // A config error names the variable; a failed migration names itself in its message.
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
