import type { LogsTable } from './tables/logs';
import type { MemoriesTable } from './tables/memories';
import type { MessagesTable } from './tables/messages';
import type { SessionsTable } from './tables/sessions';
import type { SkillsTable } from './tables/skills';
import type { WorkflowsTable } from './tables/workflows';

/** Postgres schema owned by the agent service. */
export const AGENT_SCHEMA = 'agent';

export interface AgentDatabase {
  sessions: SessionsTable;
  messages: MessagesTable;
  skills: SkillsTable;
  memories: MemoriesTable;
  workflows: WorkflowsTable;
  logs: LogsTable;
}
