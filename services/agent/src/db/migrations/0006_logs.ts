import { sql, type Kysely } from 'kysely';

/** The agent's log. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('logs')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('seq', 'bigint', (col) => col.notNull().generatedAlwaysAsIdentity())
    .addColumn('agent_id', 'uuid', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('details', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('logs_agent_idx').on('logs').columns(['agent_id', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('logs').execute();
}
