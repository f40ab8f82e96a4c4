import { sql } from 'kysely';
import { connectDatabase } from './connect';
import { openPGliteThread, type PGliteThread } from './pglite-thread';

/**
 * The embedded mode's PGlite on its own thread answers as PGlite does in the
 * caller's (the values Kysely's dialect reads, a failed statement with its
 * SQLSTATE), and a long statement no longer holds up the caller's event loop.
 */
let pglite: PGliteThread;

beforeAll(() => {
  pglite = openPGliteThread();
});

afterAll(async () => {
  await pglite.close();
});

it('returns rows with their types, and affected rows, through Kysely', async () => {
  const { db } = connectDatabase<Record<string, never>>({ kind: 'pglite', pglite }, 'public');
  await sql`create table things (id int8 primary key, at timestamptz not null, doc jsonb, data bytea)`.execute(db);
  const inserted = await sql`insert into things values (9007199254740993, '2026-11-26T03:00:00Z', '{"a":[1,2]}', '\\x0102'), (2, now(), null, null)`.execute(db);
  expect(inserted.numAffectedRows).toBe(2n);
  const { rows } = await sql<{ id: unknown; at: unknown; doc: unknown; data: unknown }>`select * from things order by at`.execute(db);
  expect(rows[0]).toEqual({ id: 9007199254740993n, at: new Date('2026-11-26T03:00:00Z'), doc: { a: [1, 2] }, data: new Uint8Array([1, 2]) });
});

it('fails a statement with the error PGlite gives, its SQLSTATE included, and keeps serving', async () => {
  const error = await pglite.query('insert into missing_table values (1)').catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(Error);
  expect(error).toMatchObject({ code: '42P01', message: 'relation "missing_table" does not exist' });
  await expect(pglite.query('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
});

it('leaves the event loop free while a long statement runs', async () => {
  let turns = 0;
  let running = true;
  const spin = () => {
    turns += 1;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  await pglite.query('select count(*) from generate_series(1, 2000000)');
  running = false;
  // On the caller's own thread the statement runs as one synchronous stretch: the loop would turn a handful of times.
  expect(turns).toBeGreaterThan(1000);
});
