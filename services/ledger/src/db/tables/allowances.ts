import type { ColumnType } from 'kysely';

/**
 * An organization's monthly allowance on the spend meter when an operator set
 * one (`npm run admin -- set-allowance`); without a row, its plan's applies.
 */
export interface AllowancesTable {
  organization_id: string;
  /** Integer micro-dollars; bigint arrives as a string. */
  monthly_allowance_micros: ColumnType<string, bigint | string, bigint | string>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
