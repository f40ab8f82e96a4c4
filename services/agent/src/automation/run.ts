import type { Kysely } from 'kysely';
import { DomainError, toDomainError } from '@gateway/lib/errors';
import type { Logger } from '@gateway/lib/logging';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { AgentRecord, AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { AgentSettings } from '../config';
import type { AgentDatabase } from '../db/schema';
import type { WorkflowRow } from '../db/tables/workflows';
import { chatBody, userTurn } from '../chat/conversation';
import type { GatewayClient } from '../chat/gateway';
import { writeLog } from '../logs/logs';
import { appendMessage } from '../sessions/messages';
import { createSession, titleFrom } from '../sessions/sessions';

export interface RunDeps {
  db: Kysely<AgentDatabase>;
  auth: PromiseClient<typeof AuthServiceService>;
  gateway: GatewayClient;
  settings: AgentSettings;
  logger: Logger;
}

const AUTOMATION_PROMPT = 'This is a scheduled task the user set up earlier. Carry it out now and report the result briefly.';

/** The workflow's session, made again when the user deleted it. */
async function resultSession(db: Kysely<AgentDatabase>, workflow: WorkflowRow): Promise<string> {
  if (workflow.session_id !== null) return workflow.session_id;
  const session = await createSession(db, workflow.agent_id, { title: titleFrom(workflow.task), category: 'automation' });
  await db.updateTable('workflows').set({ session_id: session.id }).where('id', '=', workflow.id).execute();
  return session.id;
}

/** What a run says: a reminder is its own text; any other task is the model's answer through the gateway. */
async function runResult(deps: RunDeps, agent: AgentRecord, workflow: WorkflowRow): Promise<{ content: string; requestId?: string }> {
  if (workflow.command === 'remind') return { content: `Reminder: ${workflow.task}` };
  const body = chatBody({
    agent,
    messages: [userTurn(`${AUTOMATION_PROMPT}\n\nTask: ${workflow.task}`)],
    tools: [],
    replyMaxTokens: deps.settings.replyMaxTokens,
  });
  const answer = await deps.gateway.complete(agent.id, body);
  return { content: answer.message.content ?? '', requestId: answer.requestId };
}

/**
 * Runs one claimed workflow as the user who made it: the agent record is
 * found again (it may have changed owner or been deleted since), the result
 * lands in the workflow's session as an assistant message, and the run's
 * outcome goes to the workflow and the log.
 */
export async function runWorkflow(deps: RunDeps, workflow: WorkflowRow): Promise<void> {
  const { db } = deps;
  let status: 'ok' | 'failed' = 'ok';
  let detail: Record<string, unknown> = {};
  try {
    const { agent } = await deps.auth.getUserAgent({ userId: workflow.user_id, agentId: workflow.agent_id });
    if (!agent) throw new DomainError('internal', 'auth answered without an agent record');
    const sessionId = await resultSession(db, workflow);
    const result = await runResult(deps, agent, workflow);
    const message = await appendMessage(db, {
      sessionId,
      agentId: workflow.agent_id,
      role: 'assistant',
      content: result.content,
      workflowId: workflow.id,
      ...(result.requestId ? { requestId: result.requestId } : {}),
    });
    detail = { message_id: message.id, ...(result.requestId ? { request_id: result.requestId } : {}) };
  } catch (error) {
    status = 'failed';
    const failure = toDomainError(error);
    detail = { error_type: failure.errorClass, error: failure.kind === 'internal' ? 'internal error' : failure.message };
    deps.logger.warn({ workflow_id: workflow.id, error_type: failure.errorClass, reason: failure.internalReason }, 'workflow run failed');
  }
  await db.updateTable('workflows').set({ last_run_status: status, updated_at: new Date() }).where('id', '=', workflow.id).execute();
  await writeLog(db, workflow.agent_id, 'workflow_run_finished', { workflow_id: workflow.id, run: workflow.run_count, status, ...detail });
}
