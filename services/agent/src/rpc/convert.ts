import type { MemoryEntry, Session } from '@gateway/proto/gen/gateway/agent/v1/agent';
import type { MemoryRow } from '../db/tables/memories';
import type { SessionWithCount } from '../sessions/sessions';
import { agentEnums } from './enums';

/** Rows of schema agent as gateway.agent.v1 messages. */
export function toSessionMessage(row: SessionWithCount): Session {
  return {
    sessionId: row.id,
    title: row.title,
    category: agentEnums.sessionCategory.valueOf(row.category),
    status: agentEnums.sessionStatus.valueOf(row.status),
    icon: row.icon ?? '',
    pinned: row.pinned,
    isDefault: row.is_default,
    messageCount: row.message_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastMessageAt: row.last_message_at ?? undefined,
  };
}

export function toMemoryEntry(row: MemoryRow): MemoryEntry {
  return {
    id: row.id,
    key: row.key,
    value: row.value,
    category: agentEnums.memoryCategory.valueOf(row.category),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
