import type { ColumnType, Generated, Selectable } from 'kysely';

export const sessionCategories = ['general', 'task', 'research', 'support', 'automation', 'creative', 'debug'] as const;
export const sessionStatuses = ['active', 'completed', 'paused', 'archived'] as const;
export type SessionCategoryName = (typeof sessionCategories)[number];
export type SessionStatusName = (typeof sessionStatuses)[number];

/** docs/api.md#limits-and-allowances: a session title is at most 100 characters. */
export const SESSION_TITLE_MAX = 100;
export const SESSION_ICON_MAX = 64;

/** A conversation of one agent record (docs/api.md#agent-api). */
export interface SessionsTable {
  id: Generated<string>;
  /** The agent record (schema auth) it belongs to; a plain id, auth owns that row. */
  agent_id: string;
  title: string;
  category: SessionCategoryName;
  status: SessionStatusName;
  icon: string | null;
  pinned: Generated<boolean>;
  /** The session a chat without session_id goes to; at most one per agent record. */
  is_default: Generated<boolean>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
  last_message_at: ColumnType<Date | null, never, Date>;
}
export type SessionRow = Selectable<SessionsTable>;
