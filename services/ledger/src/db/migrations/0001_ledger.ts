import { sql, type Kysely } from 'kysely';

/** Traces, ledger entries and purchased credits. Frozen. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('traces')
    .addColumn('request_id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'uuid', (col) => col.notNull())
    .addColumn('api_key_id', 'uuid')
    .addColumn('agent_id', 'uuid')
    .addColumn('principal', 'text', (col) => col.notNull().check(sql`principal in ('api_key', 'gateway_token', 'agent_secret')`))
    .addColumn('client_label', 'text', (col) => col.check(sql`char_length(client_label) <= 200`))
    .addColumn('user_agent', 'text')
    .addColumn('requested_model', 'text')
    .addColumn('served_model', 'text')
    .addColumn('tier', 'text')
    .addColumn('complexity', 'integer', (col) => col.notNull())
    .addColumn('http_status', 'integer', (col) => col.notNull())
    .addColumn('error_class', 'text')
    .addColumn('latency_ms', 'integer', (col) => col.notNull().check(sql`latency_ms >= 0`))
    .addColumn('input_tokens', 'bigint', (col) => col.notNull().check(sql`input_tokens >= 0`))
    .addColumn('output_tokens', 'bigint', (col) => col.notNull().check(sql`output_tokens >= 0`))
    .addColumn('priced', 'boolean', (col) => col.notNull())
    // Null means unpriced, never "free".
    .addColumn('cost_micros', 'bigint', (col) => col.check(sql`cost_micros >= 0`))
    .addColumn('stream', 'boolean', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz', (col) => col.notNull())
    .addColumn('recorded_at', 'timestamptz', (col) => col.notNull())
    .addCheckConstraint('traces_priced_has_cost', sql`priced = (cost_micros is not null)`)
    .execute();
  // The usage queries: one organization over a time window.
  await db.schema.createIndex('traces_org_started_idx').on('traces').columns(['organization_id', 'started_at']).execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('request_id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'uuid', (col) => col.notNull())
    .addColumn('agent_id', 'uuid')
    .addColumn('api_key_id', 'uuid')
    .addColumn('meter', 'text', (col) => col.notNull().check(sql`meter in ('spend', 'requests', 'legacy')`))
    .addColumn('amount_micros', 'bigint', (col) => col.notNull().check(sql`amount_micros >= 0`))
    .addColumn('requests', 'integer', (col) => col.notNull().check(sql`requests >= 0`))
    .addColumn('credits_used', 'integer', (col) => col.notNull().defaultTo(0).check(sql`credits_used >= 0`))
    .addColumn('occurred_at', 'timestamptz', (col) => col.notNull())
    .addColumn('period', 'date', (col) => col.notNull())
    .execute();
  // Rebuilding a period's counters sums one organization's entries of one period.
  await db.schema
    .createIndex('ledger_entries_org_period_idx')
    .on('ledger_entries')
    .columns(['organization_id', 'period'])
    .execute();

  await db.schema
    .createTable('credits')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (col) => col.notNull())
    .addColumn('amount', 'integer', (col) => col.notNull().check(sql`amount > 0`))
    .addColumn('remaining', 'integer', (col) => col.notNull())
    .addColumn('purchased_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addCheckConstraint('credits_remaining_bounds', sql`remaining >= 0 and remaining <= amount`)
    .execute();
  await db.schema.createIndex('credits_org_idx').on('credits').columns(['organization_id', 'expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credits').execute();
  await db.schema.dropTable('ledger_entries').execute();
  await db.schema.dropTable('traces').execute();
}
