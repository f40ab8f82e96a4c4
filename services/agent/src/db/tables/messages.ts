import type { ColumnType, Generated, Selectable } from 'kysely';

export const messageRoles = ['user', 'assistant', 'tool'] as const;
export type MessageRole = (typeof messageRoles)[number];

/** JSON columns: written as JSON text, read back parsed. */
export type Json<T> = ColumnType<T, string, string>;

/** An image as stored: what it was, never its bytes. */
export interface StoredImage {
  media_type: string;
  bytes: number;
  sha256: string;
}

/** One message of a session: the user's, the agent's answer, or one tool run. */
export interface MessagesTable {
  id: Generated<string>;
  /** Insertion order: messages written in one transaction share a timestamp. */
  seq: ColumnType<string, never, never>;
  session_id: string;
  agent_id: string;
  role: MessageRole;
  content: string;
  /** Tool runs only: the function, its arguments, what the agent answered, and whether it worked. */
  tool_name: string | null;
  tool_arguments: Json<unknown> | null;
  tool_result: Json<unknown> | null;
  tool_ok: boolean | null;
  images: Json<StoredImage[]>;
  /** The gateway request that produced the message (x-service-request-id). */
  request_id: string | null;
  /** The workflow whose run produced it. */
  workflow_id: string | null;
  created_at: ColumnType<Date, never, never>;
}
export type MessageRow = Selectable<MessagesTable>;
