import type { ColumnType, Generated, Selectable } from 'kysely';

export const keyEventActions = ['created', 'updated', 'revoked'] as const;

/** Audit trail: who did what to which key, and when. Append-only. */
export interface KeyEventsTable {
  id: Generated<string>;
  api_key_id: string;
  organization_id: string;
  actor_user_id: string | null;
  action: (typeof keyEventActions)[number];
  /** What changed (names, scopes before and after); never a secret. */
  detail: ColumnType<Record<string, unknown>, string, never>;
  occurred_at: ColumnType<Date, never, never>;
}
export type KeyEvent = Selectable<KeyEventsTable>;
