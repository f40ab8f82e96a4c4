import type { ColumnType, Selectable } from 'kysely';

/**
 * Records Postgres refused (a data or constraint error on the record itself,
 * never a connection failure), set aside so that they hold back no other
 * record. The payload is the stream entry as queued: an operator can repair
 * it and queue it again.
 */
export interface DeadLettersTable {
  /** The request the record belongs to (one record per request). */
  request_id: string;
  /** The stream entry it came from. */
  stream_id: string;
  /** The queued record (the JSON of recording/payload.ts), as it was in the stream. */
  payload: string;
  /** Purchased credits its settlement consumed in Redis; not consumed in Postgres. */
  credits_used: number;
  /** The SQLSTATE Postgres refused it with. */
  error_code: string;
  /** Postgres's message (never the row's values). */
  error: string;
  dead_lettered_at: ColumnType<Date, Date | undefined, never>;
}
export type DeadLetterRow = Selectable<DeadLettersTable>;
