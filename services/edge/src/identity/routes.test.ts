import { signAccessToken } from '@gateway/lib/access-token';
import { DomainError } from '@gateway/lib/errors';
import { ORG_ID, TEST_SECRET, USER_ID, sampleSession, startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { call, expectError } from '../../test/support/http';
import { PASSWORD_GRANT_DEADLINE_MS } from '../config';

const accessToken = () => signAccessToken({ userId: USER_ID, email: 'owner@example.com' }, TEST_SECRET, 900);

describe('identity routes', () => {
  let edge: RunningFakeEdge;
  let token: string;
  let loginDeadlineMs: number | undefined;

  beforeAll(async () => {
    token = await accessToken();
    edge = await startFakeEdge({
      login: async ({ password }, settings) => {
        loginDeadlineMs = settings?.deadlineMs;
        if (password !== 'right') throw new DomainError('auth', 'Invalid email or password.');
        return { session: sampleSession(token) };
      },
      refreshSession: async () => ({ session: sampleSession(token) }),
      logout: async () => ({}),
      getUser: async () => ({ user: sampleSession(token).user }),
    });
  });
  afterAll(() => edge.stop());

  const tokenCall = (grant: string, body: unknown, headers?: Record<string, string>) =>
    call<Record<string, unknown>>(edge.url, `/api/auth/v1/token?grant_type=${grant}`, { method: 'POST', body, ...(headers ? { headers } : {}) });

  it('signs in with a password: tokens, user, and the session cookie', async () => {
    const response = await tokenCall('password', { email: 'owner@example.com', password: 'right' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      access_token: token,
      token_type: 'bearer',
      expires_in: 900,
      refresh_token: sampleSession(token).refreshToken,
      user: {
        id: USER_ID,
        email: 'owner@example.com',
        memberships: [{ organization_id: ORG_ID, organization_name: 'Acme', role: 'owner', plan_tier: 'pro' }],
      },
    });
    expect(response.headers.get('set-cookie')).toBe(`service-access-token=${token}; Max-Age=900; Path=/; HttpOnly; SameSite=Lax`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(edge.auth.calls.login.at(-1)).toEqual({ email: 'owner@example.com', password: 'right', sourceAddress: expect.stringMatching(/127\.0\.0\.1$/) });
  });

  it("gives a password grant auth's password hashing time, not an ordinary call's deadline", async () => {
    await tokenCall('password', { email: 'owner@example.com', password: 'right' });
    expect(loginDeadlineMs).toBe(PASSWORD_GRANT_DEADLINE_MS);
  });

  it('passes the auth service rejection through as 401', async () => {
    const response = await tokenCall('password', { email: 'owner@example.com', password: 'wrong' });
    expect(expectError(response, 401, 'auth').message).toBe('Invalid email or password.');
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('rotates with a refresh token', async () => {
    const response = await tokenCall('refresh_token', { refresh_token: 'rt_old' });
    expect(response.status).toBe(200);
    expect(response.body.refresh_token).toBe(sampleSession(token).refreshToken);
    expect(edge.auth.calls.refreshSession.at(-1)).toEqual({ refreshToken: 'rt_old', sourceAddress: expect.any(String) });
  });

  it.each([
    ['', /query parameter "grant_type" must be one of: password, refresh_token/],
    ['client_credentials', /must be one of: password, refresh_token/],
  ])('rejects grant_type %j listing the grants', async (grant, message) => {
    expect(expectError(await tokenCall(grant, {}), 400, 'validation').message).toMatch(message);
  });

  it.each([
    ['password', { email: 'a@example.com' }, /"password" is required/],
    ['password', { email: 'a@example.com', password: 'x', remember: true }, /unknown field "remember"/],
    ['refresh_token', { refresh_token: 5 }, /"refresh_token" must be a string/],
    ['refresh_token', undefined, /request body is required/],
  ])('rejects a %s grant body %j', async (grant, body, message) => {
    expect(expectError(await tokenCall(grant, body), 400, 'validation').message).toMatch(message);
  });

  it('logs out: revokes the refresh token and clears both cookies', async () => {
    const response = await call(edge.url, '/api/auth/v1/logout', { method: 'POST', body: { refresh_token: 'rt_current' } });
    expect(response.status).toBe(204);
    expect(response.headers.getSetCookie()).toEqual([
      'service-access-token=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
      'service-refresh-token=; Max-Age=0; Path=/api/auth/v1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict',
    ]);
    expect(edge.auth.calls.logout.at(-1)).toEqual({ refreshToken: 'rt_current' });
  });

  describe('for a browser page: tokens in HttpOnly cookies only', () => {
    const cookieDelivery = { 'x-service-token-delivery': 'cookie' };
    const refreshToken = sampleSession('unused').refreshToken;

    it('signs in without putting either token in the body', async () => {
      const response = await tokenCall('password', { email: 'owner@example.com', password: 'right' }, cookieDelivery);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ token_delivery: 'cookie', expires_in: 900, user: expect.objectContaining({ id: USER_ID }) });
      expect(response.text).not.toContain(token);
      expect(response.text).not.toContain(refreshToken);
      expect(response.headers.getSetCookie()).toEqual([
        `service-access-token=${token}; Max-Age=900; Path=/; HttpOnly; SameSite=Lax`,
        `service-refresh-token=${refreshToken}; Max-Age=2592000; Path=/api/auth/v1; HttpOnly; SameSite=Strict`,
      ]);
    });

    it('refreshes with the refresh cookie and no body, and answers in cookies again', async () => {
      const response = await call<Record<string, unknown>>(edge.url, '/api/auth/v1/token?grant_type=refresh_token', {
        method: 'POST',
        cookie: 'service-refresh-token=rt_from_cookie',
        headers: { 'x-service-csrf': '1' },
      });
      expect(response.status).toBe(200);
      expect(response.body.token_delivery).toBe('cookie');
      expect(response.body).not.toHaveProperty('refresh_token');
      expect(edge.auth.calls.refreshSession.at(-1)).toEqual({ refreshToken: 'rt_from_cookie', sourceAddress: expect.any(String) });
      expect(response.headers.getSetCookie()).toHaveLength(2);
    });

    it('prefers a refresh token in the body to the cookie, and answers in the body', async () => {
      const response = await call<Record<string, unknown>>(edge.url, '/api/auth/v1/token?grant_type=refresh_token', {
        method: 'POST',
        body: { refresh_token: 'rt_from_body' },
        cookie: 'service-refresh-token=rt_from_cookie',
        headers: { 'x-service-csrf': '1' },
      });
      expect(response.body.refresh_token).toBe(refreshToken);
      expect(edge.auth.calls.refreshSession.at(-1)).toMatchObject({ refreshToken: 'rt_from_body' });
    });

    it('signs out with the refresh cookie', async () => {
      const response = await call(edge.url, '/api/auth/v1/logout', {
        method: 'POST',
        cookie: `service-access-token=${token}; service-refresh-token=rt_signed_in`,
        headers: { 'x-service-csrf': '1' },
      });
      expect(response.status).toBe(204);
      expect(edge.auth.calls.logout.at(-1)).toEqual({ refreshToken: 'rt_signed_in' });
    });
  });

  it('logs out without a body: only the cookie is cleared', async () => {
    const before = edge.auth.calls.logout.length;
    const response = await call(edge.url, '/api/auth/v1/logout', { method: 'POST' });
    expect(response.status).toBe(204);
    expect(edge.auth.calls.logout).toHaveLength(before);
  });

  it('returns the signed-in user, by bearer token or by cookie', async () => {
    for (const credentials of [{ bearer: token }, { cookie: `theme=dark; service-access-token=${token}` }]) {
      const response = await call<{ id: string; memberships: Array<{ role: string }> }>(edge.url, '/api/auth/v1/user', credentials);
      expect(response.status).toBe(200);
      expect(response.body.id).toBe(USER_ID);
      expect(response.body.memberships.map(({ role }) => role)).toEqual(['owner']);
    }
    expect(edge.auth.calls.getUser.at(-1)).toEqual({ userId: USER_ID });
  });

  it.each([
    ['no credential', {}, /Sign in first/],
    ['an API key', { bearer: `svc_test_${'0'.repeat(56)}` }, /API keys are for the gateway.*signed-in session/],
    ['a forged token', { bearer: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' }, /Sign in first: no valid session/],
    ['a token signed with another secret', { bearer: 'other' }, /no valid session/],
    ['a non-bearer header', { headers: { authorization: 'Basic YTpi' } }, /Authorization: Bearer/],
  ])('rejects %s on /user with 401', async (_label, credentials, message) => {
    expect(expectError(await call(edge.url, '/api/auth/v1/user', credentials), 401, 'auth').message).toMatch(message);
  });

  it('rejects an expired access token with a message to refresh', async () => {
    const expired = await signAccessToken({ userId: USER_ID, email: 'a@example.com' }, TEST_SECRET, -10);
    expect(expectError(await call(edge.url, '/api/auth/v1/user', { bearer: expired }), 401, 'auth').message).toMatch(/expired/);
  });
});

describe('identity routes behind a proxy, over HTTPS', () => {
  let edge: RunningFakeEdge;
  beforeAll(async () => {
    const token = await accessToken();
    edge = await startFakeEdge(
      { login: async () => ({ session: sampleSession(token) }) },
      { settings: { cookieSecure: true, trustProxy: ['loopback'] } },
    );
  });
  afterAll(() => edge.stop());

  it('marks the cookie Secure and takes the source address from the trusted proxy', async () => {
    const response = await call(edge.url, '/api/auth/v1/token?grant_type=password', {
      method: 'POST',
      body: { email: 'a@example.com', password: 'pw' },
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(response.headers.get('set-cookie')).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
    expect(edge.auth.calls.login.at(-1)?.sourceAddress).toBe('203.0.113.9');
  });
});

describe('identity routes without a trusted proxy', () => {
  it('ignores x-forwarded-for', async () => {
    const token = await accessToken();
    const edge = await startFakeEdge({ login: async () => ({ session: sampleSession(token) }) });
    try {
      await call(edge.url, '/api/auth/v1/token?grant_type=password', {
        method: 'POST',
        body: { email: 'a@example.com', password: 'pw' },
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(edge.auth.calls.login.at(-1)?.sourceAddress).toMatch(/127\.0\.0\.1$/);
    } finally {
      await edge.stop();
    }
  });
});
