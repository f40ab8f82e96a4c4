import { sql, type Kysely } from 'kysely';

/** Skills of an agent record and their encrypted credentials. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('skills')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('agent_id', 'uuid', (col) => col.notNull())
    .addColumn('skill', 'text', (col) => col.notNull())
    .addColumn('enabled', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('credentials_ciphertext', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('skills_agent_skill_key', ['agent_id', 'skill'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('skills').execute();
}
