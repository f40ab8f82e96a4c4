import type { Kysely } from 'kysely';
import type { LogEntry } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { AgentDatabase } from '../db/schema';
import type { LogEvent, LogRow } from '../db/tables/logs';

/** Appends to the agent record's log. Callers pass only what is safe to show: never a credential. */
export async function writeLog(db: Kysely<AgentDatabase>, agentId: string, event: LogEvent, details: Record<string, unknown>): Promise<void> {
  await db.insertInto('logs').values({ agent_id: agentId, event, details: JSON.stringify(details) }).execute();
}

export function recentLogs(db: Kysely<AgentDatabase>, agentId: string, limit: number): Promise<LogRow[]> {
  return db.selectFrom('logs').selectAll().where('agent_id', '=', agentId).orderBy('seq', 'desc').limit(limit).execute();
}

export function toLogEntry(row: LogRow): LogEntry {
  return { id: row.id, event: row.event, detailsJson: JSON.stringify(row.details), createdAt: row.created_at };
}
