import type { ColumnType, Generated, Selectable } from 'kysely';

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  /** Plan tier; decides the model ceiling and the monthly allowance. */
  plan_tier: string;
  created_at: ColumnType<Date, never, never>;
}
export type Organization = Selectable<OrganizationsTable>;
