import type { Kysely } from 'kysely';
import { DomainError } from '@gateway/lib/errors';
import type { AuthDatabase } from '../db/schema';
import type { MembershipRole } from '../db/tables/memberships';

export interface KeyActor {
  userId: string;
  organizationId: string;
}

export type KeyAction = 'list' | 'create' | 'edit' | 'revoke';

/** Any member lists keys; only these roles create, edit and revoke them (docs/api.md#authentication). */
const KEY_MANAGERS: readonly MembershipRole[] = ['owner', 'admin'];

/**
 * Checks that the actor may perform the action on the organization's keys.
 *
 * Someone who is not a member gets `not_found` ("organization not found"),
 * exactly as for an organization that does not exist: a non-member learns
 * nothing, not even that the organization is there. A member whose role is
 * too low gets `permission`, naming the roles that may do it.
 */
export async function authorizeKeyAction(db: Kysely<AuthDatabase>, actor: KeyActor, action: KeyAction): Promise<void> {
  const membership = await db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', actor.organizationId)
    .where('user_id', '=', actor.userId)
    .executeTakeFirst();
  if (!membership) throw new DomainError('not_found', 'Organization not found.', { field: 'organization_id' });
  if (action !== 'list' && !KEY_MANAGERS.includes(membership.role)) {
    throw new DomainError(
      'permission',
      `Only an owner or an admin of the organization can ${action} API keys; your role is ${membership.role}.`,
    );
  }
}
