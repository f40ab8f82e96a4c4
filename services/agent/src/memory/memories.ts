import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { DomainError } from '@gateway/lib/errors';
import type { AgentDatabase } from '../db/schema';
import { MEMORY_KEY_MAX, MEMORY_VALUE_MAX, memoryCategories, type MemoryCategoryName, type MemoryRow } from '../db/tables/memories';
import { storableText } from '@gateway/lib/storable-text';

/** How many entries one agent record may keep; the next new key is refused. */
export const MEMORY_MAX_ENTRIES = 1000;
/** How many entries a recall returns at most. */
export const RECALL_LIMIT = 20;

/** The fields of a memory entry, as the HTTP API, the gRPC request and the `remember` tool all check them. */
export const memoryFields = {
  key: storableText()
    .trim()
    .min(1, 'must not be empty')
    .max(MEMORY_KEY_MAX, `must be at most ${MEMORY_KEY_MAX} characters`),
  value: storableText()
    .trim()
    .min(1, 'must not be empty')
    .max(MEMORY_VALUE_MAX, `must be at most ${MEMORY_VALUE_MAX} characters`),
  category: z.enum(memoryCategories, { error: `must be one of ${memoryCategories.join(', ')}` }),
};

export interface MemoryInput {
  key: string;
  value: string;
  category: MemoryCategoryName;
}

export function listMemories(db: Kysely<AgentDatabase>, agentId: string): Promise<MemoryRow[]> {
  return db.selectFrom('memories').selectAll().where('agent_id', '=', agentId).orderBy('updated_at', 'desc').orderBy('key').execute();
}

/** Creates the entry, or replaces the value and category of the entry with that key. */
export async function rememberEntry(db: Kysely<AgentDatabase>, agentId: string, input: MemoryInput): Promise<{ memory: MemoryRow; created: boolean }> {
  const existing = await db.selectFrom('memories').select('id').where('agent_id', '=', agentId).where('key', '=', input.key).executeTakeFirst();
  if (!existing) {
    const { count } = await db
      .selectFrom('memories')
      .select(sql<number>`count(*)::int`.as('count'))
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow();
    if (count >= MEMORY_MAX_ENTRIES) {
      throw new DomainError('conflict', `Memory is full: at most ${MEMORY_MAX_ENTRIES} entries. Replace an existing key instead.`);
    }
  }
  const row = await db
    .insertInto('memories')
    .values({ agent_id: agentId, key: input.key, value: input.value, category: input.category })
    .onConflict((conflict) =>
      conflict.columns(['agent_id', 'key']).doUpdateSet({ value: input.value, category: input.category, updated_at: new Date() }),
    )
    .returningAll()
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .executeTakeFirstOrThrow();
  const { inserted, ...memory } = row;
  return { memory, created: inserted };
}

/** Entries whose key or value contains the query (any case), optionally of one category; newest first. */
export function recallEntries(
  db: Kysely<AgentDatabase>,
  agentId: string,
  filter: { query?: string | undefined; category?: MemoryCategoryName | undefined },
): Promise<MemoryRow[]> {
  let query = db.selectFrom('memories').selectAll().where('agent_id', '=', agentId);
  if (filter.category) query = query.where('category', '=', filter.category);
  const text = filter.query?.trim();
  if (text) {
    const pattern = `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    query = query.where((eb) => eb.or([eb('key', 'ilike', pattern), eb('value', 'ilike', pattern)]));
  }
  return query.orderBy('updated_at', 'desc').limit(RECALL_LIMIT).execute();
}
