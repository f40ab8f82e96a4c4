import { sql, type Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AgentDatabase } from '../db/schema';
import { SESSION_TITLE_MAX, type SessionCategoryName, type SessionRow, type SessionStatusName } from '../db/tables/sessions';

/** A session with how many messages it holds. */
export type SessionWithCount = SessionRow & { message_count: number };

export const SESSION_NOT_FOUND = 'Session not found.';

/** Titles made from text (a workflow's task) are cut to the limit docs/api.md#limits-and-allowances sets. */
export function titleFrom(text: string): string {
  const title = text.replace(/\s+/g, ' ').trim();
  return title.length <= SESSION_TITLE_MAX ? title : `${title.slice(0, SESSION_TITLE_MAX - 1)}…`;
}

function withCounts(db: Kysely<AgentDatabase>) {
  return db
    .selectFrom('sessions')
    .selectAll('sessions')
    .select((eb) =>
      eb
        .selectFrom('messages')
        .select(sql<number>`count(*)::int`.as('count'))
        .whereRef('messages.session_id', '=', 'sessions.id')
        .as('message_count'),
    );
}

/** Pinned first, then the most recently active. */
export async function listSessions(db: Kysely<AgentDatabase>, agentId: string): Promise<SessionWithCount[]> {
  const rows = await withCounts(db)
    .where('agent_id', '=', agentId)
    .orderBy('pinned', 'desc')
    .orderBy(sql`coalesce(last_message_at, updated_at)`, 'desc')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, message_count: row.message_count ?? 0 }));
}

/** One session of the agent record; any other id, another agent's included, is not_found. */
export async function findSession(db: Kysely<AgentDatabase>, agentId: string, sessionId: string): Promise<SessionWithCount> {
  const row = await withCounts(db).where('agent_id', '=', agentId).where('id', '=', sessionId).executeTakeFirst();
  if (!row) throw new DomainError('not_found', SESSION_NOT_FOUND, { field: 'session_id' });
  return { ...row, message_count: row.message_count ?? 0 };
}

export async function createSession(
  db: Kysely<AgentDatabase>,
  agentId: string,
  fields: { title: string; category: SessionCategoryName },
): Promise<SessionWithCount> {
  const row = await db
    .insertInto('sessions')
    .values({ agent_id: agentId, title: fields.title, category: fields.category, status: 'active', icon: null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, message_count: 0 };
}

export interface SessionChanges {
  title?: string;
  category?: SessionCategoryName;
  status?: SessionStatusName;
  /** null removes the icon. */
  icon?: string | null;
  pinned?: boolean;
}

export async function updateSession(db: Kysely<AgentDatabase>, agentId: string, sessionId: string, changes: SessionChanges): Promise<SessionWithCount> {
  const result = await db
    .updateTable('sessions')
    .set({ ...changes, updated_at: new Date() })
    .where('agent_id', '=', agentId)
    .where('id', '=', sessionId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new DomainError('not_found', SESSION_NOT_FOUND, { field: 'session_id' });
  return findSession(db, agentId, sessionId);
}

/** Deletes the session; its messages go with it (foreign key cascade). */
export async function deleteSession(db: Kysely<AgentDatabase>, agentId: string, sessionId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const session = await findSession(trx, agentId, sessionId);
    await trx.deleteFrom('sessions').where('id', '=', session.id).execute();
    return session.message_count;
  });
}

const DEFAULT_SESSION_TITLE = 'Chat';

/** The session a chat without session_id goes to, made on first use (at most one per agent record). */
export async function defaultSession(db: Kysely<AgentDatabase>, agentId: string): Promise<SessionWithCount> {
  const find = () => withCounts(db).where('agent_id', '=', agentId).where('is_default', '=', true).executeTakeFirst();
  const existing = await find();
  if (existing) return { ...existing, message_count: existing.message_count ?? 0 };
  await db
    .insertInto('sessions')
    .values({ agent_id: agentId, title: DEFAULT_SESSION_TITLE, category: 'general', status: 'active', icon: null, is_default: true })
    .onConflict((conflict) => conflict.column('agent_id').where('is_default', '=', true).doNothing())
    .execute();
  const created = await find();
  if (!created) throw new Error('the default session vanished right after it was made');
  return { ...created, message_count: created.message_count ?? 0 };
}
