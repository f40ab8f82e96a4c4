import { sql, type Kysely } from 'kysely';

/** The agent billing record and the legacy platform agent secret. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_instances')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('owner_user_id', 'uuid', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('running').check(sql`status in ('running', 'provisioning', 'error')`),
    )
    .addColumn('server_ip', 'text')
    .addColumn('server_tier', 'text', (col) =>
      col.notNull().defaultTo('starter').check(sql`server_tier in ('starter', 'standard', 'performance', 'enterprise')`),
    )
    .addColumn('server_region', 'text', (col) =>
      col
        .notNull()
        .defaultTo('us-east')
        .check(sql`server_region in ('us-east', 'us-west', 'eu-central', 'eu-north', 'ap-south')`),
    )
    .addColumn('ai_model', 'text', (col) => col.notNull().defaultTo('auto'))
    .addColumn('plan_tier', 'text', (col) => col.notNull())
    .addColumn('messages_limit', 'integer', (col) => col.notNull().check(sql`messages_limit >= 0`))
    .addColumn('messenger_type', 'text', (col) =>
      col.notNull().defaultTo('web').check(sql`messenger_type in ('web', 'telegram', 'discord', 'slack', 'whatsapp')`),
    )
    .addColumn('mode', 'text', (col) => col.notNull().defaultTo('managed').check(sql`mode in ('managed', 'byok')`))
    .addColumn('provider_key_ciphertext', 'text')
    .addColumn('gateway_token_hash', 'text', (col) => col.unique())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('agent_instances_byok_has_key', sql`mode = 'managed' or provider_key_ciphertext is not null`)
    .execute();
  await db.schema.createIndex('agent_instances_org_idx').on('agent_instances').column('organization_id').execute();
  await db.schema.createIndex('agent_instances_owner_idx').on('agent_instances').column('owner_user_id').execute();

  await db.schema
    .createTable('platform_agent_secrets')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('secret_hash', 'text', (col) => col.notNull().unique())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('platform_agent_secrets').execute();
  await db.schema.dropTable('agent_instances').execute();
}
