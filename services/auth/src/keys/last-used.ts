import { sql, type Kysely } from 'kysely';
import type { Logger } from '@gateway/lib/logging';
import type { AuthDatabase } from '../db/schema';

/** last_used_at is accurate to the minute only (docs/api.md#api-keys and #limits-and-allowances). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Stamps a key as used now, unless it was stamped less than a minute ago.
 * The condition lives in the statement itself, so it holds across every
 * replica and every race: concurrent calls write once. Resolves to whether
 * this call wrote.
 */
export async function touchLastUsed(db: Kysely<AuthDatabase>, keyId: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface LastUsedRecorder {
  /** Called after a successful verification; never delays the caller. */
  record(keyId: string, lastUsedAt: Date | null, now: Date): void;
}

/**
 * Issues touchLastUsed off the response path. Two local hints only save
 * statements (the database condition is the rule): the key's last_used_at as
 * just read, and whether a touch for the key is already in flight here.
 */
export function createLastUsedRecorder(db: Kysely<AuthDatabase>, logger: Logger): LastUsedRecorder {
  const inFlight = new Set<string>();
  return {
    record(keyId, lastUsedAt, now) {
      if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
      if (inFlight.has(keyId)) return;
      inFlight.add(keyId);
      setImmediate(() => {
        touchLastUsed(db, keyId)
          .catch((error: unknown) => logger.warn({ err: error, api_key_id: keyId }, 'last_used_at write failed'))
          .finally(() => inFlight.delete(keyId));
      });
    },
  };
}
