import type { ColumnType, Generated, Selectable } from 'kysely';

export interface ApiKeysTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  /** Marker plus selector (17 characters), unique: the lookup index. */
  prefix: string;
  /** SHA-256 (hex) of the whole key. The key itself is never stored. */
  secret_hash: string;
  scopes: string[];
  /** Bound agent record; set to null when that record is deleted. */
  agent_id: string | null;
  expires_at: Date | null;
  /** Written at most once a minute (the UPDATE's own condition enforces it). */
  last_used_at: ColumnType<Date | null, never, Date>;
  created_at: ColumnType<Date, never, never>;
  created_by_user_id: string | null;
  revoked_at: ColumnType<Date | null, never, Date>;
}
export type ApiKeyRow = Selectable<ApiKeysTable>;
