import { sql, type Kysely } from 'kysely';

/** Organization API keys and their audit trail. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('prefix', 'char(17)', (col) => col.notNull().unique())
    .addColumn('secret_hash', 'char(64)', (col) => col.notNull())
    .addColumn('scopes', sql`text[]`, (col) => col.notNull())
    // Deleting the agent record clears the binding; the key keeps working at organization level.
    .addColumn('agent_id', 'uuid', (col) => col.references('agent_instances.id').onDelete('set null'))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('created_by_user_id', 'uuid', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').columns(['organization_id', 'created_at']).execute();

  await db.schema
    .createTable('key_events')
    .addColumn('id', 'bigserial', (col) => col.primaryKey())
    .addColumn('api_key_id', 'uuid', (col) => col.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('organization_id', 'uuid', (col) => col.notNull())
    .addColumn('actor_user_id', 'uuid')
    .addColumn('action', 'text', (col) => col.notNull().check(sql`action in ('created', 'updated', 'revoked')`))
    .addColumn('detail', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('occurred_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('key_events_key_idx').on('key_events').columns(['api_key_id', 'occurred_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('key_events').execute();
  await db.schema.dropTable('api_keys').execute();
}
