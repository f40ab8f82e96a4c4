import { Client } from 'pg';
import { Pool } from 'undici';
import type { Send } from './load';

/**
 * What the fault runs keep of every answer (when it was sent, its status,
 * whether it said `x-service-metered: true`, its request id), and what they
 * compare it with: the organization's rows in the ledger's Postgres tables.
 */
export interface Answer {
  sentAt: number;
  status: number;
  metered: boolean;
  requestId: string;
}

/** One chat request per call to the gateway, open-loop paced by the caller; each answer pushed to `answers`. */
export function chatSender(pool: Pool, key: string, answers: Answer[], body: Record<string, unknown>): Send {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const payload = JSON.stringify(body);
  return async () => {
    const sentAt = Date.now();
    const response = await pool.request({ path: '/api/gateway/v1/chat/completions', method: 'POST', headers, body: payload });
    await response.body.text();
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    answers.push({ sentAt, status: response.statusCode, metered: header('x-service-metered') === 'true', requestId: header('x-service-request-id') ?? '' });
    return response.statusCode === 200 ? { ok: true } : { ok: false, reason: `status ${response.statusCode}` };
  };
}

export interface StoredRecords {
  /** Request ids with a trace row. */
  traced: Set<string>;
  /** Rows beyond one per request id, in traces and in ledger entries. */
  duplicated: number;
}

/**
 * The organization's records as Postgres holds them, read on a connection
 * of its own each time: the Postgres fault ends every other connection to
 * the database, and this must not depend on surviving that.
 */
export async function storedRecords(databaseUrl: string, organizationId: string): Promise<StoredRecords> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const traces = await client.query<{ request_id: string }>('select request_id from ledger.traces where organization_id = $1', [organizationId]);
    const entries = await client.query<{ rows: string; ids: string }>(
      'select count(*) as rows, count(distinct request_id) as ids from ledger.ledger_entries where organization_id = $1',
      [organizationId],
    );
    const traced = new Set(traces.rows.map((row) => row.request_id));
    const entryRow = entries.rows[0];
    return { traced, duplicated: traces.rows.length - traced.size + (entryRow ? Number(entryRow.rows) - Number(entryRow.ids) : 0) };
  } finally {
    await client.end();
  }
}

/**
 * Waits for the ledger's writer to bring the metered answers into Postgres:
 * until every one is there, or until nothing new has landed for
 * `quietMs` (a record that never comes is what the run measures as lost).
 */
export async function settledRecords(databaseUrl: string, organizationId: string, answers: readonly Answer[], quietMs: number): Promise<StoredRecords> {
  const metered = answers.filter((answer) => answer.metered);
  let last = await storedRecords(databaseUrl, organizationId);
  let lastProgress = Date.now();
  while (metered.some((answer) => !last.traced.has(answer.requestId)) && Date.now() - lastProgress < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await storedRecords(databaseUrl, organizationId).catch(() => last);
    if (next.traced.size > last.traced.size) lastProgress = Date.now();
    last = next;
  }
  return last;
}
