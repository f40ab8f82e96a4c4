import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { createLogger } from '../logging';
import { connectDatabase, type Database } from './connect';

/**
 * Postgres may end a connection at any moment (a restart, a failover,
 * pg_terminate_backend). Whatever the connection was doing, the statement on
 * it fails, the process lives, and the next query gets a fresh connection.
 */
let testDatabase: TestDatabase;
let database: Database<unknown>;
let admin: Client;
const logLines: string[] = [];

beforeAll(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  testDatabase = await createTestDatabase('lib_connection_loss');
  database = connectDatabase<unknown>(
    { kind: 'postgres', url: testDatabase.url, poolSize: 2, logger: createLogger({ service: 'test', destination }) },
    'public',
  );
  admin = new Client({ connectionString: testDatabase.url });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end();
  await database?.destroy();
  await testDatabase?.drop();
});

/** Waits until a backend of this database other than the admin's is in the given state, then ends every such backend. */
async function terminateWhen(state: string): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = $1',
      [state],
    );
    if (rows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
}

const selectOne = async () => (await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows[0]?.one;

it('fails a query whose connection is ended under it, and serves the next one', async () => {
  const query = sql`select pg_sleep(60)`.execute(database.db);
  await terminateWhen('active');
  await expect(query).rejects.toThrow(/terminat/);
  expect(await selectOne()).toBe(1);
});

it('fails a transaction whose connection is ended between its statements, and serves the next one', async () => {
  let ended: () => void = () => undefined;
  const terminated = new Promise<void>((resolve) => (ended = resolve));
  const transaction = database.db.transaction().execute(async (trx) => {
    await sql`select 1`.execute(trx);
    await terminated;
    await sql`select 2`.execute(trx);
  });
  await terminateWhen('idle in transaction');
  ended();
  await expect(transaction).rejects.toThrow();
  expect(await selectOne()).toBe(1);
  // Logged once, however many connections were lost since.
  expect(logLines.filter((line) => line.includes('postgres closed a connection'))).toHaveLength(1);
});
