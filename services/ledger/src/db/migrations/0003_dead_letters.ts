import { sql, type Kysely } from 'kysely';

/** Records Postgres refused, set aside by the writer. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dead_letters')
    .addColumn('request_id', 'text', (col) => col.primaryKey())
    .addColumn('stream_id', 'text', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('credits_used', 'integer', (col) => col.notNull())
    .addColumn('error_code', 'text', (col) => col.notNull())
    .addColumn('error', 'text', (col) => col.notNull())
    .addColumn('dead_lettered_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dead_letters').execute();
}
