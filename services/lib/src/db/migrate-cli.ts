import { env, loadConfig } from '../config';
import { connectDatabase, type Database } from './connect';
import { migrateToLatest, pendingMigrations, type MigrationIndex } from './migrate';

/**
 * The body of each service's migrate command (`npm run migrate` runs them
 * all): applies the service's pending migrations to DATABASE_URL and prints
 * what it applied. Deploy runs the same command as an init step, or as a Job
 * before a rollout; with `--wait` it applies nothing and returns once
 * another run (that Job) has applied every migration this build knows, so a
 * new version's pods start only on the schema their code needs.
 */
export function runMigrationCli(schema: string, migrations: MigrationIndex, argv: readonly string[] = process.argv.slice(2)): void {
  const run = async () => {
    const { DATABASE_URL, MIGRATION_WAIT_TIMEOUT_MS } = loadConfig({ DATABASE_URL: env.url(), MIGRATION_WAIT_TIMEOUT_MS: env.positiveInt(600_000) });
    const database = connectDatabase<unknown>({ kind: 'postgres', url: DATABASE_URL, poolSize: 1 }, schema);
    try {
      if (argv.includes('--wait')) {
        await waitForMigrations(database.db, schema, migrations, {
          timeoutMs: MIGRATION_WAIT_TIMEOUT_MS,
          onWaiting: (pending) => console.log(`schema ${schema}: waiting for ${pending.join(', ')}`),
        });
        console.log(`schema ${schema}: up to date`);
        return;
      }
      const applied = await migrateToLatest(database.db, schema, migrations);
      if (applied.length === 0) console.log(`schema ${schema}: up to date`);
      for (const name of applied) console.log(`schema ${schema}: applied ${name}`);
    } finally {
      await database.destroy();
    }
  };
  run().catch((error: unknown) => {
    // A config error names the variable; a failed migration names itself in its message.
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Called with the pending migrations whenever they change. */
  onWaiting?: (pending: string[]) => void;
}

/** Resolves once no migration of `migrations` is pending; rejects, naming them, after timeoutMs. */
export async function waitForMigrations(db: Database<unknown>['db'], schema: string, migrations: MigrationIndex, { timeoutMs, intervalMs = 2000, onWaiting }: WaitOptions): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let reported = '';
  for (;;) {
    const pending = await pendingMigrations(db, schema, migrations);
    if (pending.length === 0) return;
    if (pending.join() !== reported) onWaiting?.(pending);
    reported = pending.join();
    if (Date.now() > deadline) throw new Error(`schema ${schema}: ${pending.join(', ')} still not applied after ${timeoutMs} ms; run the migration Job (deploy/README.md, "Migrations")`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
