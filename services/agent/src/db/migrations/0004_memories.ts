import { sql, type Kysely } from 'kysely';

/** Memory entries of an agent record, one value per key. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('memories')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('agent_id', 'uuid', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull().check(sql`char_length(key) between 1 and 100`))
    .addColumn('value', 'text', (col) => col.notNull().check(sql`char_length(value) between 1 and 2000`))
    .addColumn('category', 'text', (col) => col.notNull().check(sql`category in ('fact', 'preference', 'contact', 'project', 'note')`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('memories_agent_key_key', ['agent_id', 'key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('memories').execute();
}
