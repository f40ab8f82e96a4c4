import type { Kysely } from 'kysely';
import type { ChatMessage } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { AgentDatabase } from '../db/schema';
import type { MessageRole, MessageRow, StoredImage } from '../db/tables/messages';

export interface NewMessage {
  sessionId: string;
  agentId: string;
  role: MessageRole;
  content: string;
  images?: StoredImage[];
  requestId?: string;
  workflowId?: string;
  tool?: { name: string; arguments: unknown; result: unknown; ok: boolean };
}

/** Appends a message to its session and moves the session's last-message time. */
export async function appendMessage(db: Kysely<AgentDatabase>, message: NewMessage): Promise<MessageRow> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('messages')
      .values({
        session_id: message.sessionId,
        agent_id: message.agentId,
        role: message.role,
        content: message.content,
        images: JSON.stringify(message.images ?? []),
        request_id: message.requestId ?? null,
        workflow_id: message.workflowId ?? null,
        tool_name: message.tool?.name ?? null,
        tool_arguments: message.tool ? JSON.stringify(message.tool.arguments) : null,
        tool_result: message.tool ? JSON.stringify(message.tool.result) : null,
        tool_ok: message.tool?.ok ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const now = new Date();
    await trx.updateTable('sessions').set({ last_message_at: now, updated_at: now }).where('id', '=', message.sessionId).execute();
    return row;
  });
}

/** The latest messages of a session, oldest first. */
export async function sessionHistory(db: Kysely<AgentDatabase>, sessionId: string, limit: number): Promise<MessageRow[]> {
  const rows = await db.selectFrom('messages').selectAll().where('session_id', '=', sessionId).orderBy('seq', 'desc').limit(limit).execute();
  return rows.reverse();
}

/** The agent record's latest messages across its sessions, newest first. */
export function recentMessages(db: Kysely<AgentDatabase>, agentId: string, limit: number): Promise<MessageRow[]> {
  return db.selectFrom('messages').selectAll().where('agent_id', '=', agentId).orderBy('seq', 'desc').limit(limit).execute();
}

export function toChatMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    sessionId: row.session_id,
    role: row.role,
    content: row.content,
    tool:
      row.tool_name === null
        ? undefined
        : {
            name: row.tool_name,
            argumentsJson: JSON.stringify(row.tool_arguments),
            resultJson: JSON.stringify(row.tool_result),
            ok: row.tool_ok === true,
          },
    images: row.images.map((image) => ({ mediaType: image.media_type, bytes: image.bytes, sha256: image.sha256 })),
    requestId: row.request_id ?? '',
    workflowId: row.workflow_id ?? '',
    createdAt: row.created_at,
  };
}
