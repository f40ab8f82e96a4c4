import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json } from './messages';

/** What an agent record's log records. */
export const logEvents = [
  'settings_update_requested',
  'skill_enabled',
  'skill_disabled',
  'skill_credentials_set',
  'workflow_created',
  'workflow_run_started',
  'workflow_run_finished',
  'chat_failed',
] as const;
export type LogEvent = (typeof logEvents)[number];

/** The agent's log (status include=logs). Details never hold a credential or a provider key. */
export interface LogsTable {
  id: Generated<string>;
  seq: ColumnType<string, never, never>;
  agent_id: string;
  event: LogEvent;
  details: Json<Record<string, unknown>>;
  created_at: ColumnType<Date, never, never>;
}
export type LogRow = Selectable<LogsTable>;
