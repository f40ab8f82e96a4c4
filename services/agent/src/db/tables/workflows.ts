import type { ColumnType, Generated, Selectable } from 'kysely';

export const workflowCommands = ['automate', 'schedule', 'trigger', 'remind'] as const;
export type WorkflowCommand = (typeof workflowCommands)[number];
export const workflowKinds = ['once', 'recurring'] as const;
export type WorkflowKind = (typeof workflowKinds)[number];
export type WorkflowStatus = 'active' | 'completed';
export type RunStatus = 'ok' | 'failed';

/** A stored automation: what to do, and when; the scheduler runs it. */
export interface WorkflowsTable {
  id: Generated<string>;
  agent_id: string;
  /** The user who created it; runs act as them. */
  user_id: string;
  /** Where run results land; recreated when the session was deleted. */
  session_id: string | null;
  command: WorkflowCommand;
  kind: WorkflowKind;
  task: string;
  source_text: string;
  /** Recurring only: five-field cron, UTC. */
  cron: string | null;
  /** How the schedule was understood, in words. */
  schedule: string;
  /** Null once a one-off workflow has run. */
  next_run_at: Date | null;
  last_run_at: Date | null;
  last_run_status: RunStatus | null;
  run_count: Generated<number>;
  status: WorkflowStatus;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
export type WorkflowRow = Selectable<WorkflowsTable>;
