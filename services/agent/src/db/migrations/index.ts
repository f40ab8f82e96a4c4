import type { MigrationIndex } from '@gateway/lib/db';
import * as sessions from './0001_sessions';
import * as messages from './0002_messages';
import * as skills from './0003_skills';
import * as memories from './0004_memories';
import * as workflows from './0005_workflows';
import * as logs from './0006_logs';

/** Every migration of schema `agent`, one per table, in order. Released entries never change. */
export const agentMigrations: MigrationIndex = {
  '0001_sessions': sessions,
  '0002_messages': messages,
  '0003_skills': skills,
  '0004_memories': memories,
  '0005_workflows': workflows,
  '0006_logs': logs,
};

/** Named in the 503 when a table is missing: applying up to the latest creates every table. */
export function latestAgentMigration(): string {
  return Object.keys(agentMigrations).sort().at(-1) ?? '';
}
