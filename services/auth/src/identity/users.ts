import { Role, type User } from '@gateway/proto/gen/gateway/auth/v1/auth';
import type { Kysely } from 'kysely';
import type { AuthDatabase } from '../db/schema';
import type { MembershipRole } from '../db/tables/memberships';

const protoRoles: Record<MembershipRole, Role> = {
  owner: Role.ROLE_OWNER,
  admin: Role.ROLE_ADMIN,
  member: Role.ROLE_MEMBER,
};

/** What a password login needs to know about an account; `email` is already lower-cased. */
export async function findLoginAccount(
  db: Kysely<AuthDatabase>,
  email: string,
): Promise<{ id: string; passwordHash: string } | undefined> {
  const row = await db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirst();
  return row && { id: row.id, passwordHash: row.password_hash };
}

/** The user with every organization they belong to, oldest membership first. */
export async function loadUser(db: Kysely<AuthDatabase>, userId: string): Promise<User | undefined> {
  const [user, memberships] = await Promise.all([
    db.selectFrom('users').select(['id', 'email']).where('id', '=', userId).executeTakeFirst(),
    db
      .selectFrom('memberships')
      .innerJoin('organizations', 'organizations.id', 'memberships.organization_id')
      .select(['organizations.id', 'organizations.name', 'organizations.plan_tier', 'memberships.role'])
      .where('memberships.user_id', '=', userId)
      .orderBy('memberships.created_at')
      .orderBy('organizations.id')
      .execute(),
  ]);
  if (!user) return undefined;
  return {
    id: user.id,
    email: user.email,
    memberships: memberships.map((membership) => ({
      organizationId: membership.id,
      organizationName: membership.name,
      role: protoRoles[membership.role],
      planTier: membership.plan_tier,
    })),
  };
}
