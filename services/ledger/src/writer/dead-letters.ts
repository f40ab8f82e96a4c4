import type { Kysely } from 'kysely';
import { sqlStateOf } from '@gateway/lib/db';
import type { LedgerDatabase } from '../db/schema';
import type { QueuedRecord } from '../queue/queue';

export interface RefusedRecord {
  requestId: string;
  entry: QueuedRecord;
  /** The SQLSTATE Postgres refused it with. */
  code: string;
  /** Postgres's message alone: its detail may quote the row's values. */
  reason: string;
}

export function refusalOf(requestId: string, entry: QueuedRecord, error: unknown): RefusedRecord {
  return { requestId, entry, code: sqlStateOf(error) ?? '', reason: error instanceof Error ? error.message : String(error) };
}

/**
 * Sets refused records aside in `dead_letters`, once per request id (a
 * redelivered batch refuses the same record again). Returns the request ids
 * set aside now, so each is reported once.
 */
export async function setAside(db: Kysely<LedgerDatabase>, refused: RefusedRecord[]): Promise<Set<string>> {
  if (refused.length === 0) return new Set();
  const inserted = await db
    .insertInto('dead_letters')
    .values(
      refused.map(({ requestId, entry, code, reason }) => ({
        request_id: requestId,
        stream_id: entry.id,
        payload: entry.record,
        credits_used: entry.creditsUsed,
        error_code: code,
        error: reason,
      })),
    )
    .onConflict((conflict) => conflict.column('request_id').doNothing())
    .returning('request_id')
    .execute();
  return new Set(inserted.map(({ request_id }) => request_id));
}
