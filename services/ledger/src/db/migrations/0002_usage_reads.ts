import { sql, type Kysely } from 'kysely';

/**
 * What the usage service needs to read traces: a read-only role and an index
 * that answers its queries without touching the table. Frozen.
 *
 * The role is cluster-wide (Postgres roles are not per database), so it is
 * created only if absent (so a migrating login without CREATEROLE works once
 * an administrator has created it): other databases of the cluster (another
 * deployment, test databases) may have created it first, even at the same
 * moment. The grants are per database. It holds SELECT on `traces` and nothing else:
 * no write anywhere, no other schema.
 *
 * The index replaces traces_org_started_idx (same key columns) and carries
 * every column a usage report reads, so a report is an index-only scan of the
 * organization's window whatever the other organizations' volume. Building it
 * holds off the record writer on a large table; records wait in the Redis
 * stream meanwhile and nothing is lost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    do $$
    begin
      if not exists (select from pg_catalog.pg_roles where rolname = 'ledger_usage_reader') then
        create role ledger_usage_reader nologin;
      end if;
    exception when duplicate_object or unique_violation then
      null;
    end
    $$`.execute(db);
  await sql`grant usage on schema ledger to ledger_usage_reader`.execute(db);
  await sql`grant select on ledger.traces to ledger_usage_reader`.execute(db);

  await sql`
    create index traces_usage_idx on ledger.traces (organization_id, started_at)
    include (latency_ms, error_class, cost_micros, served_model, api_key_id, agent_id)`.execute(db);
  await db.schema.dropIndex('traces_org_started_idx').execute();

  // Index-only scans need the visibility map of recent pages: vacuum this
  // insert-only table every 100,000 inserts rather than every 20% of its size.
  await sql`alter table ledger.traces set (autovacuum_vacuum_insert_threshold = 100000, autovacuum_vacuum_insert_scale_factor = 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger.traces reset (autovacuum_vacuum_insert_threshold, autovacuum_vacuum_insert_scale_factor)`.execute(db);
  await db.schema.createIndex('traces_org_started_idx').on('traces').columns(['organization_id', 'started_at']).execute();
  await db.schema.dropIndex('traces_usage_idx').execute();
  // The role may serve other databases of the cluster: only this database's grants go.
  await sql`revoke select on ledger.traces from ledger_usage_reader`.execute(db);
  await sql`revoke usage on schema ledger from ledger_usage_reader`.execute(db);
}
