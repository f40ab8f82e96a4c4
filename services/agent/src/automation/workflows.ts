import type { Kysely } from 'kysely';
import type { Workflow } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { AgentDatabase } from '../db/schema';
import type { WorkflowCommand, WorkflowRow } from '../db/tables/workflows';
import { writeLog } from '../logs/logs';
import { agentEnums } from '../rpc/enums';
import { createSession, titleFrom } from '../sessions/sessions';
import { parseAutomation } from './parse';

/**
 * Turns a command's text into a stored workflow, with a session of its own
 * (category `automation`) where the results of its runs land.
 */
export async function createWorkflow(
  db: Kysely<AgentDatabase>,
  owner: { agentId: string; userId: string },
  command: WorkflowCommand,
  text: string,
  now = new Date(),
): Promise<WorkflowRow> {
  const parsed = parseAutomation(command, text, now);
  return db.transaction().execute(async (trx) => {
    const session = await createSession(trx, owner.agentId, { title: titleFrom(parsed.task), category: 'automation' });
    const workflow = await trx
      .insertInto('workflows')
      .values({
        agent_id: owner.agentId,
        user_id: owner.userId,
        session_id: session.id,
        command,
        kind: parsed.kind,
        task: parsed.task,
        source_text: text.trim(),
        cron: parsed.kind === 'recurring' ? parsed.cron : null,
        schedule: parsed.schedule,
        next_run_at: parsed.kind === 'recurring' ? parsed.nextRunAt : parsed.runAt,
        last_run_at: null,
        last_run_status: null,
        status: 'active',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await writeLog(trx, owner.agentId, 'workflow_created', { workflow_id: workflow.id, command, schedule: workflow.schedule });
    return workflow;
  });
}

/** Active workflows first, soonest next run first; then the finished ones, newest first. */
export function listWorkflows(db: Kysely<AgentDatabase>, agentId: string): Promise<WorkflowRow[]> {
  return db
    .selectFrom('workflows')
    .selectAll()
    .where('agent_id', '=', agentId)
    .orderBy('status')
    .orderBy('next_run_at', (order) => order.asc().nullsLast())
    .orderBy('created_at', 'desc')
    .execute();
}

export function toWorkflowMessage(row: WorkflowRow): Workflow {
  return {
    id: row.id,
    command: agentEnums.automateCommand.valueOf(row.command),
    kind: row.kind,
    task: row.task,
    sourceText: row.source_text,
    cron: row.cron ?? '',
    schedule: row.schedule,
    nextRunAt: row.next_run_at ?? undefined,
    lastRunAt: row.last_run_at ?? undefined,
    lastRunStatus: row.last_run_status ?? '',
    runCount: row.run_count,
    status: row.status,
    sessionId: row.session_id ?? '',
    createdAt: row.created_at,
  };
}
