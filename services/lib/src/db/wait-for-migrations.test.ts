import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { connectDatabase, type Database } from './connect';
import { migrateToLatest, type MigrationIndex } from './migrate';
import { waitForMigrations } from './migrate-cli';

/**
 * `migrate --wait`, what a new version's pods run before they start: it
 * returns only once another run (the migration Job) has applied every
 * migration it knows, and gives up naming what is missing.
 */
const SCHEMA = 'waiting';
const migrations: MigrationIndex = {
  '0001_first': { up: async (db) => void (await sql`create table waiting.first (id int)`.execute(db)) },
  '0002_second': { up: async (db) => void (await sql`create table waiting.second (id int)`.execute(db)) },
};

let testDatabase: TestDatabase;
let database: Database<unknown>;

beforeAll(async () => {
  testDatabase = await createTestDatabase('lib_wait_migrations');
  database = connectDatabase<unknown>({ kind: 'postgres', url: testDatabase.url, poolSize: 2 }, SCHEMA);
});

afterAll(async () => {
  await database?.destroy();
  await testDatabase?.drop();
});

it('waits while migrations are pending, and returns once they are applied', async () => {
  const seen: string[][] = [];
  let waited = false;
  const waiting = waitForMigrations(database.db, SCHEMA, migrations, { timeoutMs: 60_000, intervalMs: 20, onWaiting: (pending) => seen.push(pending) }).then(() => {
    waited = true;
  });
  // The first round has reported what is pending before anything is applied.
  while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(waited).toBe(false);
  await migrateToLatest(database.db, SCHEMA, migrations);
  await waiting;
  expect(seen[0]).toEqual(['0001_first', '0002_second']);
});

it('gives up after its timeout, naming the migrations still missing', async () => {
  const later: MigrationIndex = { ...migrations, '0003_third': { up: async () => undefined } };
  await expect(waitForMigrations(database.db, SCHEMA, later, { timeoutMs: 1, intervalMs: 5 })).rejects.toThrow(/0003_third still not applied after 1 ms/);
});
