import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * The legacy platform agent secret (presented with `X-Service-Agent-Id`).
 * No new ones are issued over HTTP; the admin command seeds them.
 */
export interface PlatformAgentSecretsTable {
  id: Generated<string>;
  secret_hash: string;
  description: string;
  created_at: ColumnType<Date, never, never>;
  revoked_at: ColumnType<Date | null, never, Date>;
}
export type PlatformAgentSecret = Selectable<PlatformAgentSecretsTable>;
