import type { ColumnType, Selectable } from 'kysely';
import type { MeterName } from '@gateway/lib/catalog';
import type { Int8 } from './traces';

/**
 * One row per gateway request: what it moved on its organization's meter for
 * the period. The Redis counters of a period are the sums of these rows, and
 * are rebuilt from them.
 */
export interface LedgerEntriesTable {
  request_id: string;
  organization_id: string;
  agent_id: string | null;
  api_key_id: string | null;
  meter: MeterName;
  /** Micro-dollars charged; added to the spend meter when the meter is `spend`. */
  amount_micros: Int8;
  /** Requests counted (0 when the call never reached the provider). */
  requests: number;
  /** Purchased credits this request consumed (requests and legacy meters). */
  credits_used: number;
  occurred_at: Date;
  /** First day of the UTC calendar month the request counts in; written and compared as `YYYY-MM-01`. */
  period: ColumnType<Date, string, string>;
}
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
