import type { Kysely } from 'kysely';
import type { AuthDatabase } from '../db/schema';
import type { KeyEventsTable } from '../db/tables/key-events';

export interface KeyEvent {
  apiKeyId: string;
  organizationId: string;
  actorUserId: string;
  action: KeyEventsTable['action'];
  /** Names, scopes, binding, expiry: never the secret or its hash. */
  detail: Record<string, unknown>;
}

/** Appends an audit row; called inside the transaction that made the change. */
export async function recordKeyEvent(trx: Kysely<AuthDatabase>, event: KeyEvent): Promise<void> {
  await trx
    .insertInto('key_events')
    .values({
      api_key_id: event.apiKeyId,
      organization_id: event.organizationId,
      actor_user_id: event.actorUserId,
      action: event.action,
      detail: JSON.stringify(event.detail),
    })
    .execute();
}
