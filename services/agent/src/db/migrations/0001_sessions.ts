import { sql, type Kysely } from 'kysely';

/** Sessions of an agent record. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('agent_id', 'uuid', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull().check(sql`char_length(title) between 1 and 100`))
    .addColumn('category', 'text', (col) =>
      col.notNull().check(sql`category in ('general', 'task', 'research', 'support', 'automation', 'creative', 'debug')`),
    )
    .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('active', 'completed', 'paused', 'archived')`))
    .addColumn('icon', 'text', (col) => col.check(sql`char_length(icon) between 1 and 64`))
    .addColumn('pinned', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('is_default', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('last_message_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('sessions_agent_idx').on('sessions').columns(['agent_id', 'updated_at']).execute();
  // One default session per agent record, so two first chats at once cannot make two.
  await db.schema.createIndex('sessions_one_default_idx').on('sessions').column('agent_id').unique().where(sql.ref('is_default'), '=', true).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
}
