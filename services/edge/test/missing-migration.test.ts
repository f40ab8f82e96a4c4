import { createOrganization } from '@gateway/auth/admin';
import { API_KEYS_MIGRATION, AUTH_SCHEMA, authMigrations, type AuthDatabase } from '@gateway/auth/db';
import { migrateToLatest, type Database } from '@gateway/lib/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { call, expectError } from './support/http';
import { connectAuthDatabase, seedAccount, signIn } from './support/seed';
import { STARTUP_TIMEOUT_MS, startEdgeStack, type EdgeStack } from './support/stack';

/**
 * A deployment whose database lacks the keys migration (docs/api.md#authentication): the
 * Console says so, naming the migration, and never answers an empty list.
 */
describe('Console key API without the keys migration (edge + auth processes)', () => {
  let database: TestDatabase;
  let auth: Database<AuthDatabase>;
  let stack: EdgeStack;
  let orgId: string;
  let accessToken: string;

  beforeAll(async () => {
    database = await createTestDatabase('edge_missing_migration');
    auth = connectAuthDatabase(database.url);
    const beforeKeys = Object.fromEntries(Object.entries(authMigrations).filter(([name]) => name < API_KEYS_MIGRATION));
    await migrateToLatest(auth.db, AUTH_SCHEMA, beforeKeys);
    stack = await startEdgeStack({ databaseUrl: database.url, authEnv: { MIGRATE_ON_START: 'false' } });
    orgId = (await createOrganization(auth.db, { name: 'Acme', plan: 'pro' })).id;
    const owner = await seedAccount(auth.db, 'owner', { org: orgId, role: 'owner' });
    accessToken = (await signIn(stack.url, owner)).accessToken;
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
    await auth?.destroy();
    await database?.drop();
  });

  it.each([
    ['GET', ''],
    ['POST', ''],
    ['PATCH', '/00000000-0000-4000-8000-000000000000'],
    ['POST', '/00000000-0000-4000-8000-000000000000/revoke'],
  ])('%s keys%s answers 503 naming the missing migration', async (method, suffix) => {
    const body = method === 'GET' ? {} : { body: method === 'PATCH' ? { name: 'x' } : suffix ? {} : { name: 'k' } };
    const response = await call(stack.url, `/api/v1/orgs/${orgId}/keys${suffix}`, { method, bearer: accessToken, ...body });
    const { message } = expectError(response, 503, 'internal');
    expect(message).toContain(API_KEYS_MIGRATION);
    expect(response.text).not.toMatch(/"active"/);
  });

  it('logged no credential in either process', () => {
    expect(stack.loggedCredentials()).toEqual([]);
  });
});
