import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Purchased credits of an organization: extra requests or messages counted
 * after the plan's monthly limit is used up (requests and legacy meters).
 */
export interface CreditsTable {
  id: Generated<string>;
  organization_id: string;
  /** Requests or messages bought. */
  amount: number;
  /** What is left; the writer consumes it as ledger entries arrive. */
  remaining: number;
  purchased_at: ColumnType<Date, Date | undefined, never>;
  /** Null: the credits never expire. */
  expires_at: Date | null;
}
export type CreditRow = Selectable<CreditsTable>;
