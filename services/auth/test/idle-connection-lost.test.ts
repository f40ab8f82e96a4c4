import { sql } from 'kysely';
import { findCredentials } from '../../../test/support/secrets-scan';
import { AUTH_START_TIMEOUT_MS, startAuth, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/**
 * Postgres may close a pooled connection while it is idle (a restart, a
 * failover, an operator ending a backend). The service must go on serving on
 * a new connection rather than die of the pool's unhandled error.
 */
let database: AuthTestDatabase;
let auth: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('idle_connection_lost');
  auth = await startAuth(database.url);
}, AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await auth?.stop();
  await database?.drop();
});

/** Ends every backend on the test database but the asking one (listed first: a planner may call a function before a filter). */
async function terminateOtherConnections(): Promise<number> {
  return database.db.connection().execute(async (connection) => {
    const others = await sql<{ pid: number }>`
      select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(connection);
    for (const { pid } of others.rows) await sql`select pg_terminate_backend(${pid})`.execute(connection);
    return others.rows.length;
  });
}

it('keeps serving after Postgres ends its idle connections, and says so in its log', async () => {
  const { organization, owner } = await seedOrganizationWithRoles(database.db);
  const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' });
  await auth.client.authenticate({ credential: created.secret, agentId: '' });

  expect(await terminateOtherConnections()).toBeGreaterThan(0);
  await new Promise((resolve) => setTimeout(resolve, 200));

  await expect(auth.client.authenticate({ credential: created.secret, agentId: '' })).resolves.toMatchObject({
    principal: { organizationId: organization.id },
  });
  expect(auth.process.logs()).toContain('postgres closed a connection');
  expect(findCredentials(auth.process.logs())).toEqual([]);
});
