import { sql, type Kysely } from 'kysely';

/** Messages of a session; deleting the session deletes them. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('seq', 'bigint', (col) => col.notNull().generatedAlwaysAsIdentity())
    .addColumn('session_id', 'uuid', (col) => col.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('agent_id', 'uuid', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('user', 'assistant', 'tool')`))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('tool_name', 'text')
    .addColumn('tool_arguments', 'jsonb')
    .addColumn('tool_result', 'jsonb')
    .addColumn('tool_ok', 'boolean')
    .addColumn('images', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('request_id', 'text')
    .addColumn('workflow_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('messages_tool_runs_named', sql`(role = 'tool') = (tool_name is not null)`)
    .execute();
  await db.schema.createIndex('messages_session_idx').on('messages').columns(['session_id', 'seq']).execute();
  await db.schema.createIndex('messages_agent_idx').on('messages').columns(['agent_id', 'seq']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('messages').execute();
}
