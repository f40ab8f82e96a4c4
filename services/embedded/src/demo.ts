import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { addMember, createAgent, createKey, createOrganization, createUser } from '@gateway/auth/admin';
import type { AuthDatabase } from '@gateway/auth/db';

export const DEMO_EMAIL = 'demo@example.com';

export type DemoAccount =
  | { created: true; organizationId: string; email: string; password: string; apiKey: string }
  | { created: false; email: string };

/**
 * First start only: an organization on the simulated plan, its owner, and
 * one API key. The password and the key are shown once, as the Console
 * would; only their hashes are stored.
 */
export async function ensureDemoAccount(db: Kysely<AuthDatabase>): Promise<DemoAccount> {
  const existing = await db.selectFrom('users').select('id').where('email', '=', DEMO_EMAIL).executeTakeFirst();
  if (existing) return { created: false, email: DEMO_EMAIL };
  const organization = await createOrganization(db, { name: 'Demo', plan: 'simulated' });
  const password = randomBytes(9).toString('base64url');
  await createUser(db, { email: DEMO_EMAIL, password });
  await addMember(db, { org: organization.id, email: DEMO_EMAIL, role: 'owner' });
  const { key } = await createKey(db, 'test', { org: organization.id, actorEmail: DEMO_EMAIL, name: 'Demo key' });
  return { created: true, organizationId: organization.id, email: DEMO_EMAIL, password, apiKey: key };
}

/**
 * The demo owner's agent record, so the agent API answers out of the box;
 * made at first start, and at the next start of a data folder from before
 * the agent API existed.
 */
export async function ensureDemoAgent(db: Kysely<AuthDatabase>): Promise<void> {
  const owner = await db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .leftJoin('agent_instances', 'agent_instances.owner_user_id', 'users.id')
    .select(['memberships.organization_id', 'agent_instances.id as agent_id'])
    .where('users.email', '=', DEMO_EMAIL)
    .orderBy('memberships.created_at')
    .executeTakeFirst();
  if (!owner || owner.agent_id !== null) return;
  await createAgent(db, { org: owner.organization_id, ownerEmail: DEMO_EMAIL });
}
