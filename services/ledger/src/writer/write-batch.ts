import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import { LEDGER_SCHEMA, type LedgerDatabase } from '../db/schema';
import type { LedgerEntriesTable } from '../db/tables/ledger-entries';
import type { TracesTable } from '../db/tables/traces';
import type { RecordPayload } from '../recording/payload';
import { consumeCredits } from './credits';

export interface WritableRecord {
  payload: RecordPayload;
  creditsUsed: number;
}

function traceRow(payload: RecordPayload): Insertable<TracesTable> {
  return {
    request_id: payload.request_id,
    organization_id: payload.organization_id,
    api_key_id: payload.api_key_id,
    agent_id: payload.agent_id,
    principal: payload.principal,
    client_label: payload.client_label,
    user_agent: payload.user_agent,
    requested_model: payload.requested_model,
    served_model: payload.served_model,
    tier: payload.tier,
    complexity: payload.complexity,
    http_status: payload.http_status,
    error_class: payload.error_class,
    latency_ms: payload.latency_ms,
    input_tokens: payload.input_tokens,
    output_tokens: payload.output_tokens,
    priced: payload.priced,
    cost_micros: payload.cost_micros,
    price_list_version: payload.price_list_version ?? null,
    routing_policy_version: payload.routing_policy_version ?? null,
    stream: payload.stream,
    started_at: new Date(payload.started_at),
    recorded_at: new Date(payload.recorded_at),
  };
}

function entryRow({ payload, creditsUsed }: WritableRecord): Insertable<LedgerEntriesTable> {
  return {
    request_id: payload.request_id,
    organization_id: payload.organization_id,
    agent_id: payload.agent_id,
    api_key_id: payload.api_key_id,
    meter: payload.meter,
    amount_micros: payload.amount_micros,
    requests: payload.requests,
    credits_used: creditsUsed,
    occurred_at: new Date(payload.started_at),
    period: payload.period,
  };
}

type Row = Record<string, unknown>;

/**
 * `INSERT INTO <table> (<columns>) SELECT <columns> FROM jsonb_populate_recordset(...)`:
 * the batch's rows go to Postgres as one JSON parameter, which Postgres reads
 * into the table's own column types, rather than as a bound parameter per
 * column and row (23 × a batch of up to 500). Building and binding those was
 * half of the writer's time on the ledger's event loop, in which no record is
 * answered (a profile at 200 req/s: 6.5 ms a batch before, 3.3 after;
 * docs/performance.md, "The run the night before").
 * A value Postgres refuses fails the statement as any insert would
 * (a NUL byte in text: SQLSTATE 22P05), which isolate-refused.ts relies on.
 */
function insertRows(table: keyof LedgerDatabase, rows: readonly Row[]): RawBuilder<unknown> {
  const target = sql.table(`${LEDGER_SCHEMA}.${table}`);
  // Every row of a table has the same keys (traceRow, entryRow): the columns are the first row's.
  const list = sql.join(Object.keys(rows[0] ?? {}).map((column) => sql.ref(column)));
  return sql`INSERT INTO ${target} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${target}, ${JSON.stringify(rows)}::jsonb) ON CONFLICT (request_id) DO NOTHING`;
}

/**
 * Writes a batch in one transaction. A record seen before (a redelivery after
 * a crash between COMMIT and XACK) is skipped by its request id, and only
 * entries actually inserted consume purchased credits, so a redelivered batch
 * changes nothing.
 */
export async function writeRecords(db: Kysely<LedgerDatabase>, records: WritableRecord[], now: Date): Promise<void> {
  if (records.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await insertRows('traces', records.map(({ payload }) => traceRow(payload))).execute(trx);
    const inserted = await sql<{ organization_id: string; credits_used: number }>`${insertRows('ledger_entries', records.map(entryRow))} RETURNING organization_id, credits_used`.execute(trx);
    const creditsByOrganization = new Map<string, number>();
    for (const { organization_id, credits_used } of inserted.rows) {
      if (credits_used > 0) creditsByOrganization.set(organization_id, (creditsByOrganization.get(organization_id) ?? 0) + credits_used);
    }
    for (const organizationId of [...creditsByOrganization.keys()].sort()) {
      await consumeCredits(trx, organizationId, creditsByOrganization.get(organizationId) ?? 0, now);
    }
  });
}
