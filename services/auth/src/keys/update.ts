import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AuthDatabase } from '../db/schema';
import { authorizeKeyAction, type KeyActor } from './access';
import { recordKeyEvent } from './events';
import { API_KEY_COLUMNS, apiKeyNotFound, type ApiKeyRecord } from './records';
import type { ScopeName } from './scopes';

/** What an edit may change: name and scopes. The secret never changes. */
export interface KeyChanges {
  name?: string;
  scopes?: ScopeName[];
}

/** Edits a key's name and/or scopes (owner or admin), with its audit row, in one transaction. */
export async function updateApiKey(
  db: Kysely<AuthDatabase>,
  actor: KeyActor,
  apiKeyId: string,
  changes: KeyChanges,
): Promise<ApiKeyRecord> {
  await authorizeKeyAction(db, actor, 'edit');
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('api_keys')
      .select(['name', 'scopes', 'revoked_at'])
      .where('id', '=', apiKeyId)
      .where('organization_id', '=', actor.organizationId)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw apiKeyNotFound();
    if (before.revoked_at) throw new DomainError('conflict', 'The API key is revoked; a revoked key cannot be edited.');
    const updated = await trx
      .updateTable('api_keys')
      .set({
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.scopes === undefined ? {} : { scopes: changes.scopes }),
      })
      .where('id', '=', apiKeyId)
      .returning(API_KEY_COLUMNS)
      .executeTakeFirstOrThrow();
    await recordKeyEvent(trx, {
      apiKeyId,
      organizationId: actor.organizationId,
      actorUserId: actor.userId,
      action: 'updated',
      detail: {
        before: { name: before.name, scopes: before.scopes },
        after: { name: updated.name, scopes: updated.scopes },
      },
    });
    return updated;
  });
}
