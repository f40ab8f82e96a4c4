import type { Kysely, Selectable } from 'kysely';
import type { LedgerDatabase } from '@gateway/ledger/db';
import { eventually } from './eventually';

type TraceRow = Selectable<LedgerDatabase['traces']>;
type LedgerEntryRow = Selectable<LedgerDatabase['ledger_entries']>;

export interface OrganizationRecords {
  traces: TraceRow[];
  entries: LedgerEntryRow[];
}

/**
 * The organization's trace and ledger rows once the writer has committed
 * `count` of each (records travel through a Redis stream into Postgres in
 * batches, so they land a little after the response).
 */
export function committedRecords(db: Kysely<LedgerDatabase>, organizationId: string, count: number): Promise<OrganizationRecords> {
  return eventually(async () => {
    const [traces, entries] = await Promise.all([
      db.selectFrom('traces').selectAll().where('organization_id', '=', organizationId).execute(),
      db.selectFrom('ledger_entries').selectAll().where('organization_id', '=', organizationId).execute(),
    ]);
    if (traces.length > count || entries.length > count) {
      throw new Error(`expected ${count} records of the organization, found ${traces.length} traces and ${entries.length} ledger entries`);
    }
    return traces.length === count && entries.length === count ? { traces, entries } : undefined;
  }, `${count} committed records of organization ${organizationId}`);
}

/** The trace of one request, once the writer has committed it. */
export function committedTrace(db: Kysely<LedgerDatabase>, requestId: string): Promise<TraceRow> {
  return eventually(() => db.selectFrom('traces').selectAll().where('request_id', '=', requestId).executeTakeFirst(), `the trace of request ${requestId}`);
}
