import { createOrganization } from '@gateway/auth/admin';
import type { AuthDatabase } from '@gateway/auth/db';
import type { Database } from '@gateway/lib/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { call, expectError } from './support/http';
import { connectAuthDatabase, seedAccount, signIn, type Account } from './support/seed';
import { STARTUP_TIMEOUT_MS, startEdgeStack, type EdgeStack } from './support/stack';

/**
 * Edge with its auth service gone: not ready, and every call that needs auth
 * fails closed with 503 `internal`, never a success.
 */
describe('edge when the auth service stops (edge + auth processes)', () => {
  let database: TestDatabase;
  let auth: Database<AuthDatabase>;
  let stack: EdgeStack;
  let orgId: string;
  let owner: Account;
  let accessToken: string;

  beforeAll(async () => {
    database = await createTestDatabase('edge_readiness');
    stack = await startEdgeStack({ databaseUrl: database.url });
    auth = connectAuthDatabase(database.url);
    orgId = (await createOrganization(auth.db, { name: 'Acme', plan: 'pro' })).id;
    owner = await seedAccount(auth.db, 'owner', { org: orgId, role: 'owner' });
    accessToken = (await signIn(stack.url, owner)).accessToken;
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
    await auth?.destroy();
    await database?.drop();
  });

  it('is live and ready while auth serves, live and not ready once it stops', async () => {
    expect(await call(stack.url, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call(stack.url, '/readyz')).toMatchObject({ status: 200, body: { status: 'ready', dependencies: { auth: 'serving' } } });
    expect((await call(stack.url, `/api/v1/orgs/${orgId}/keys`, { bearer: accessToken })).status).toBe(200);

    await stack.auth.stop();

    expect(expectError(await call(stack.url, '/readyz'), 503, 'internal').message).toMatch(/auth/);
    expect(await call(stack.url, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });

    // A valid session is not enough: the Console fails closed.
    const listed = await call(stack.url, `/api/v1/orgs/${orgId}/keys`, { bearer: accessToken });
    expect(expectError(listed, 503, 'internal').message).toMatch(/auth service is unavailable/);
    const created = await call(stack.url, `/api/v1/orgs/${orgId}/keys`, { method: 'POST', bearer: accessToken, body: { name: 'k' } });
    expectError(created, 503, 'internal');
    const signedIn = await call(stack.url, '/api/auth/v1/token?grant_type=password', {
      method: 'POST',
      body: { email: owner.email, password: owner.password },
    });
    expectError(signedIn, 503, 'internal');
    expect(signedIn.headers.get('set-cookie')).toBeNull();
  });

  it('logged no credential in either process', () => {
    expect(stack.loggedCredentials()).toEqual([]);
  });
});
