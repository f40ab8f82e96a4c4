import { randomInt } from 'node:crypto';
import { createKey, createOrganization } from '@gateway/auth/admin';
import type { Database } from '@gateway/lib/db';
import type { AuthDatabase } from '@gateway/auth/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { call, expectError, type JsonResponse } from './support/http';
import { connectAuthDatabase, seedAccount, signIn, uniqueEmail, type Account } from './support/seed';
import { STARTUP_TIMEOUT_MS, startEdgeStack, type EdgeStack } from './support/stack';

/**
 * Identity through real edge and auth processes: sign-in, the cookie and the
 * bearer token, refresh rotation, sign-out, and the failed-login throttle.
 * Edge trusts the loopback proxy, so each test speaks from addresses of its
 * own (x-forwarded-for) and the per-source throttle counts only its calls.
 */
const MAX_FAILURES_PER_ACCOUNT = 3;
const MAX_FAILURES_PER_SOURCE = 4;

/** An address in 198.18.0.0/15 (benchmarking range), fresh for each use. */
function freshSource(): Record<string, string> {
  return { 'x-forwarded-for': `198.${18 + randomInt(2)}.${randomInt(256)}.${randomInt(1, 255)}` };
}

interface SessionBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  user: { id: string; email: string; memberships: Array<{ organization_id: string; organization_name: string; role: string; plan_tier: string }> };
}

describe('identity endpoints (edge + auth processes)', () => {
  let database: TestDatabase;
  let auth: Database<AuthDatabase>;
  let stack: EdgeStack;
  let orgId: string;
  let owner: Account;

  beforeAll(async () => {
    database = await createTestDatabase('edge_identity');
    stack = await startEdgeStack({
      databaseUrl: database.url,
      authEnv: {
        LOGIN_MAX_FAILURES_PER_ACCOUNT: String(MAX_FAILURES_PER_ACCOUNT),
        LOGIN_MAX_FAILURES_PER_SOURCE: String(MAX_FAILURES_PER_SOURCE),
      },
      edgeEnv: { TRUST_PROXY: 'loopback' },
    });
    auth = connectAuthDatabase(database.url);
    orgId = (await createOrganization(auth.db, { name: 'Acme', plan: 'pro' })).id;
    owner = await seedAccount(auth.db, 'owner', { org: orgId, role: 'owner' });
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
    await auth?.destroy();
    await database?.drop();
  });

  const passwordGrant = (email: string, password: string, headers = freshSource()) =>
    call<SessionBody>(stack.url, '/api/auth/v1/token?grant_type=password', { method: 'POST', body: { email, password }, headers });
  const refreshGrant = (refreshToken: string) =>
    call<SessionBody>(stack.url, '/api/auth/v1/token?grant_type=refresh_token', {
      method: 'POST',
      body: { refresh_token: refreshToken },
      headers: freshSource(),
    });

  it('signs in with a password: tokens, the user with memberships, and the session cookie', async () => {
    const response = await passwordGrant(owner.email, owner.password);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'bearer',
      expires_in: expect.any(Number),
      refresh_token: expect.any(String),
      user: {
        id: owner.id,
        email: owner.email,
        memberships: [{ organization_id: orgId, organization_name: 'Acme', role: 'owner', plan_tier: 'pro' }],
      },
    });
    expect(response.body.expires_in).toBeGreaterThan(0);
    expect(response.headers.get('set-cookie')).toBe(
      `service-access-token=${response.body.access_token}; Max-Age=${response.body.expires_in}; Path=/; HttpOnly; SameSite=Lax`,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts the access token as a bearer token and as the cookie', async () => {
    const session = await signIn(stack.url, owner, { headers: freshSource() });
    for (const credentials of [{ bearer: session.accessToken }, { cookie: session.cookie }]) {
      const user = await call<SessionBody['user']>(stack.url, '/api/auth/v1/user', credentials);
      expect(user.status).toBe(200);
      expect(user.body).toMatchObject({ id: owner.id, email: owner.email, memberships: [{ organization_id: orgId, role: 'owner' }] });
      const keys = await call(stack.url, `/api/v1/orgs/${orgId}/keys`, credentials);
      expect(keys).toMatchObject({ status: 200, body: { active: [], revoked: [] } });
    }
  });

  it('rotates the refresh token on use; the spent one is refused', async () => {
    const session = await signIn(stack.url, owner, { headers: freshSource() });
    const rotated = await refreshGrant(session.refreshToken);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(session.refreshToken);
    expect(rotated.body.user.id).toBe(owner.id);
    expect(rotated.headers.get('set-cookie')).toMatch(/^service-access-token=[\w.-]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect((await call(stack.url, '/api/auth/v1/user', { bearer: rotated.body.access_token })).status).toBe(200);

    expectError(await refreshGrant(session.refreshToken), 401, 'auth');
  });

  it('signs out: the refresh token stops working and both cookies are cleared', async () => {
    const session = await signIn(stack.url, owner, { headers: freshSource() });
    const response = await call(stack.url, '/api/auth/v1/logout', { method: 'POST', body: { refresh_token: session.refreshToken } });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(response.headers.getSetCookie()).toEqual([
      'service-access-token=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
      'service-refresh-token=; Max-Age=0; Path=/api/auth/v1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict',
    ]);
    expectError(await refreshGrant(session.refreshToken), 401, 'auth');
  });

  it('rejects a wrong password with 401, then throttles the account with 429 and retry-after', async () => {
    const victim = await seedAccount(auth.db, 'victim', { org: orgId, role: 'member' });
    for (let attempt = 0; attempt < MAX_FAILURES_PER_ACCOUNT; attempt += 1) {
      expect(expectError(await passwordGrant(victim.email, 'not-the-password'), 401, 'auth').message).toBe('Invalid email or password.');
    }
    // Even the right password, from a new address, waits out the window.
    const throttled = await passwordGrant(victim.email, victim.password);
    expectError(throttled, 429, 'rate_limit');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.headers.get('set-cookie')).toBeNull();
  });

  it('throttles a source address across accounts, using the client address edge passes on', async () => {
    const source = freshSource();
    const attempts: JsonResponse[] = [];
    for (let attempt = 0; attempt <= MAX_FAILURES_PER_SOURCE; attempt += 1) {
      attempts.push(await passwordGrant(uniqueEmail('nobody'), 'guess', source));
    }
    expect(attempts.map(({ status }) => status)).toEqual([...Array<number>(MAX_FAILURES_PER_SOURCE).fill(401), 429]);
    expect(Number(attempts.at(-1)?.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await passwordGrant(owner.email, owner.password)).status).toBe(200);
  });

  it('refuses an API key where a session is required', async () => {
    const { key } = await createKey(auth.db, 'test', { org: orgId, actorEmail: owner.email, name: 'not for the Console' });
    for (const path of ['/api/auth/v1/user', `/api/v1/orgs/${orgId}/keys`]) {
      expect(expectError(await call(stack.url, path, { bearer: key }), 401, 'auth').message).toMatch(/signed-in session/);
    }
  });

  it('rejects a missing or unknown grant type, listing the grant types', async () => {
    for (const query of ['', '?grant_type=client_credentials']) {
      const response = await call(stack.url, `/api/auth/v1/token${query}`, { method: 'POST', body: {} });
      expect(expectError(response, 400, 'validation').message).toMatch(/grant_type.*password, refresh_token/);
    }
  });

  it('logged no credential in either process', () => {
    expect(stack.loggedCredentials()).toEqual([]);
  });
});
