import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { AuthDatabase } from '../db/schema';

/**
 * Opaque refresh tokens: `rt_` and 32 random bytes in hex. Only their SHA-256
 * is stored. Every token is used once: a refresh rotates it to a new token of
 * the same family, and presenting a rotated token again revokes the family.
 */
const TOKEN_SHAPE = /^rt_[0-9a-f]{64}$/;

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Stores a new token of `familyId` (a new family when omitted) and returns it: the only time it exists in clear. */
export async function issueRefreshToken(
  db: Kysely<AuthDatabase>,
  userId: string,
  ttlDays: number,
  familyId: string = randomUUID(),
): Promise<string> {
  const token = `rt_${randomBytes(32).toString('hex')}`;
  await db
    .insertInto('refresh_tokens')
    .values({
      user_id: userId,
      family_id: familyId,
      token_hash: hashRefreshToken(token),
      expires_at: sql<Date>`now() + make_interval(days => ${ttlDays})`,
    })
    .execute();
  return token;
}

export type RotationOutcome =
  | { kind: 'rotated'; userId: string; refreshToken: string }
  /** A token already rotated was presented again: its family is now revoked. */
  | { kind: 'reused'; userId: string; familyId: string }
  | { kind: 'rejected'; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

async function revokeFamily(db: Kysely<AuthDatabase>, familyId: string): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: sql<Date>`now()` })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Exchanges a refresh token for the next one of its family, in one
 * transaction. The `rotated_at is null` guard lets exactly one of two
 * concurrent refreshes win; the loser has used a spent token, which is
 * treated like any other reuse.
 */
export async function rotateRefreshToken(db: Kysely<AuthDatabase>, token: string, ttlDays: number): Promise<RotationOutcome> {
  if (!TOKEN_SHAPE.test(token)) return { kind: 'rejected', reason: 'malformed' };
  const row = await db
    .selectFrom('refresh_tokens')
    .select(['id', 'user_id', 'family_id', 'rotated_at', 'revoked_at', sql<boolean>`expires_at <= now()`.as('expired')])
    .where('token_hash', '=', hashRefreshToken(token))
    .executeTakeFirst();
  if (!row) return { kind: 'rejected', reason: 'unknown' };
  if (row.revoked_at) return { kind: 'rejected', reason: 'revoked' };
  const reused: RotationOutcome = { kind: 'reused', userId: row.user_id, familyId: row.family_id };
  if (row.rotated_at) {
    await revokeFamily(db, row.family_id);
    return reused;
  }
  if (row.expired) return { kind: 'rejected', reason: 'expired' };

  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('refresh_tokens')
      .set({ rotated_at: sql<Date>`now()` })
      .where('id', '=', row.id)
      .where('rotated_at', 'is', null)
      .where('revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!claimed) {
      await revokeFamily(trx, row.family_id);
      return reused;
    }
    const refreshToken = await issueRefreshToken(trx, row.user_id, ttlDays, row.family_id);
    return { kind: 'rotated', userId: row.user_id, refreshToken };
  });
}

/** Ends the session a token belongs to (its whole family). Unknown or malformed tokens are ignored. */
export async function revokeSessionOf(db: Kysely<AuthDatabase>, token: string): Promise<void> {
  if (!TOKEN_SHAPE.test(token)) return;
  const row = await db
    .selectFrom('refresh_tokens')
    .select('family_id')
    .where('token_hash', '=', hashRefreshToken(token))
    .executeTakeFirst();
  if (row) await revokeFamily(db, row.family_id);
}
