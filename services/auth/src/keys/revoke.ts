import { sql, type Kysely } from 'kysely';
import type { AuthDatabase } from '../db/schema';
import { authorizeKeyAction, type KeyActor } from './access';
import { recordKeyEvent } from './events';
import { API_KEY_COLUMNS, apiKeyNotFound, type ApiKeyRecord } from './records';

/**
 * Revokes a key (owner or admin). Idempotent (docs/api.md#api-keys): only the first
 * revoke sets revoked_at, so the timestamp records when access actually
 * ended; a repeat returns the key unchanged and writes no audit row, since
 * nothing changed. Access ends at once: verification reads the row on every
 * call.
 */
export async function revokeApiKey(db: Kysely<AuthDatabase>, actor: KeyActor, apiKeyId: string): Promise<ApiKeyRecord> {
  await authorizeKeyAction(db, actor, 'revoke');
  return db.transaction().execute(async (trx) => {
    const revoked = await trx
      .updateTable('api_keys')
      .set({ revoked_at: sql<Date>`now()` })
      .where('id', '=', apiKeyId)
      .where('organization_id', '=', actor.organizationId)
      .where('revoked_at', 'is', null)
      .returning(API_KEY_COLUMNS)
      .executeTakeFirst();
    if (revoked) {
      await recordKeyEvent(trx, {
        apiKeyId,
        organizationId: actor.organizationId,
        actorUserId: actor.userId,
        action: 'revoked',
        detail: { name: revoked.name },
      });
      return revoked;
    }
    const existing = await trx
      .selectFrom('api_keys')
      .select(API_KEY_COLUMNS)
      .where('id', '=', apiKeyId)
      .where('organization_id', '=', actor.organizationId)
      .executeTakeFirst();
    if (!existing) throw apiKeyNotFound();
    return existing;
  });
}
