import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { connectDatabase, migrateToLatest, type MigrationIndex } from '@gateway/lib/db';
import { createTestDatabase } from '../../../../test/support/databases';
import { AUTH_SCHEMA, authMigrations, type AuthDatabase } from '../../src/db';
import type { AgentInstancesTable } from '../../src/db/tables/agent-instances';
import type { MembershipRole } from '../../src/db/tables/memberships';

/**
 * A database of its own for one auth test file, with schema `auth` migrated
 * (all migrations unless told otherwise), and a Kysely handle on it.
 */
export interface AuthTestDatabase {
  url: string;
  db: Kysely<AuthDatabase>;
  /** Closes the handle and drops the database. */
  drop(): Promise<void>;
}

export async function createAuthTestDatabase(label: string, migrations: MigrationIndex = authMigrations): Promise<AuthTestDatabase> {
  const created = await createTestDatabase(label);
  const database = connectDatabase<AuthDatabase>({ kind: 'postgres', url: created.url, poolSize: 4 }, AUTH_SCHEMA);
  await migrateToLatest(database.db, AUTH_SCHEMA, migrations);
  return {
    url: created.url,
    db: database.db,
    drop: async () => {
      await database.destroy();
      await created.drop();
    },
  };
}

/** The first migrations only, e.g. a deployment that lacks the keys migration. */
export function migrationsUpTo(last: string): MigrationIndex {
  return Object.fromEntries(Object.entries(authMigrations).filter(([name]) => name <= last));
}

const unique = () => randomBytes(4).toString('hex');

export async function seedOrganization(db: Kysely<AuthDatabase>, planTier = 'pro') {
  return db
    .insertInto('organizations')
    .values({ name: `Org ${unique()}`, plan_tier: planTier })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A user who cannot log in (the stored hash matches no password); key tests need no login. */
export async function seedUser(db: Kysely<AuthDatabase>) {
  return db
    .insertInto('users')
    .values({ email: `user-${unique()}@example.test`, password_hash: 'unusable' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new user holding `role` in the organization; resolves to the user's id. */
export async function seedMember(db: Kysely<AuthDatabase>, organizationId: string, role: MembershipRole): Promise<string> {
  const user = await seedUser(db);
  await db.insertInto('memberships').values({ organization_id: organizationId, user_id: user.id, role }).execute();
  return user.id;
}

export type AgentOverrides = Partial<Pick<AgentInstancesTable, 'ai_model' | 'mode' | 'plan_tier' | 'provider_key_ciphertext' | 'owner_user_id'>>;

/** An agent billing record of the organization; a BYOK record gets a placeholder ciphertext. */
export async function seedAgent(db: Kysely<AuthDatabase>, organizationId: string, overrides: AgentOverrides = {}) {
  const mode = overrides.mode ?? 'managed';
  return db
    .insertInto('agent_instances')
    .values({
      organization_id: organizationId,
      owner_user_id: overrides.owner_user_id ?? null,
      status: 'running',
      server_ip: null,
      server_tier: 'starter',
      server_region: 'us-east',
      ai_model: overrides.ai_model ?? 'gpt-4o-mini',
      plan_tier: overrides.plan_tier ?? 'starter',
      messages_limit: 1000,
      messenger_type: 'web',
      mode,
      provider_key_ciphertext: overrides.provider_key_ciphertext ?? (mode === 'byok' ? 'placeholder-ciphertext' : null),
      gateway_token_hash: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** An organization with one member of each role. */
export async function seedOrganizationWithRoles(db: Kysely<AuthDatabase>, planTier = 'pro') {
  const organization = await seedOrganization(db, planTier);
  const [owner, admin, member] = await Promise.all(
    (['owner', 'admin', 'member'] as const).map((role) => seedMember(db, organization.id, role)),
  );
  return { organization, owner: owner as string, admin: admin as string, member: member as string };
}
