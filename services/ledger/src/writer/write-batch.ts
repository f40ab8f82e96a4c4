import type { Insertable, Kysely } from 'kysely';
import type { LedgerDatabase } from '../db/schema';
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

/**
 * Writes a batch in one transaction. A record seen before (a redelivery after
 * a crash between COMMIT and XACK) is skipped by its request id, and only
 * entries actually inserted consume purchased credits, so a redelivered batch
 * changes nothing.
 */
export async function writeRecords(db: Kysely<LedgerDatabase>, records: WritableRecord[], now: Date): Promise<void> {
  if (records.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('traces')
      .values(records.map(({ payload }) => traceRow(payload)))
      .onConflict((conflict) => conflict.column('request_id').doNothing())
      .execute();
    const inserted = await trx
      .insertInto('ledger_entries')
      .values(records.map(entryRow))
      .onConflict((conflict) => conflict.column('request_id').doNothing())
      .returning(['organization_id', 'credits_used'])
      .execute();
    const creditsByOrganization = new Map<string, number>();
    for (const { organization_id, credits_used } of inserted) {
      if (credits_used > 0) creditsByOrganization.set(organization_id, (creditsByOrganization.get(organization_id) ?? 0) + credits_used);
    }
    for (const organizationId of [...creditsByOrganization.keys()].sort()) {
      await consumeCredits(trx, organizationId, creditsByOrganization.get(organizationId) ?? 0, now);
    }
  });
}
