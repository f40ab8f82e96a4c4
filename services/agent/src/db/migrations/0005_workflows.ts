import { sql, type Kysely } from 'kysely';

/** Workflows (automations) and what the scheduler needs to find the due ones. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workflows')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('agent_id', 'uuid', (col) => col.notNull())
    .addColumn('user_id', 'uuid', (col) => col.notNull())
    .addColumn('session_id', 'uuid', (col) => col.references('sessions.id').onDelete('set null'))
    .addColumn('command', 'text', (col) => col.notNull().check(sql`command in ('automate', 'schedule', 'trigger', 'remind')`))
    .addColumn('kind', 'text', (col) => col.notNull().check(sql`kind in ('once', 'recurring')`))
    .addColumn('task', 'text', (col) => col.notNull())
    .addColumn('source_text', 'text', (col) => col.notNull())
    .addColumn('cron', 'text')
    .addColumn('schedule', 'text', (col) => col.notNull())
    .addColumn('next_run_at', 'timestamptz')
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('last_run_status', 'text', (col) => col.check(sql`last_run_status in ('ok', 'failed')`))
    .addColumn('run_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('active', 'completed')`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('workflows_recurring_has_cron', sql`(kind = 'recurring') = (cron is not null)`)
    .execute();
  await db.schema.createIndex('workflows_agent_idx').on('workflows').columns(['agent_id', 'created_at']).execute();
  // The scheduler's question: which active workflows are due.
  await db.schema
    .createIndex('workflows_due_idx')
    .on('workflows')
    .column('next_run_at')
    .where(sql.ref('status'), '=', 'active')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('workflows').execute();
}
