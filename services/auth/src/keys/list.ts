import type { Kysely } from 'kysely';
import type { AuthDatabase } from '../db/schema';
import { authorizeKeyAction, type KeyActor } from './access';
import { API_KEY_COLUMNS, type ApiKeyRecord } from './records';

export interface KeyListing {
  /** Not revoked; expired keys stay here (their status says EXPIRED). */
  active: ApiKeyRecord[];
  /** Revoked keys, listed under their own heading (docs/api.md#api-keys). */
  revoked: ApiKeyRecord[];
}

/** The organization's keys, newest first (any member). */
export async function listApiKeys(db: Kysely<AuthDatabase>, actor: KeyActor): Promise<KeyListing> {
  await authorizeKeyAction(db, actor, 'list');
  const records = await db
    .selectFrom('api_keys')
    .select(API_KEY_COLUMNS)
    .where('organization_id', '=', actor.organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return {
    active: records.filter((record) => record.revoked_at === null),
    revoked: records.filter((record) => record.revoked_at !== null),
  };
}
