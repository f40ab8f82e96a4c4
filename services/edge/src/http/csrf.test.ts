import { signAccessToken } from '@gateway/lib/access-token';
import { ORG_ID, TEST_SECRET, USER_ID, sampleKey, startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { call, expectError, type CallOptions } from '../../test/support/http';

/**
 * The cross-site request guard in front of every route that takes the
 * session cookie: what a forged request looks like to edge (the cookie, no
 * custom header, a cross-site Sec-Fetch-Site), and what passes unchanged.
 */
const KEY_ID = sampleKey().id;
const revokePath = `/api/v1/orgs/${ORG_ID}/keys/${KEY_ID}/revoke`;

describe('cross-site request guard', () => {
  let edge: RunningFakeEdge;
  let token: string;
  let cookie: string;

  beforeAll(async () => {
    token = await signAccessToken({ userId: USER_ID, email: 'owner@example.com' }, TEST_SECRET, 900);
    cookie = `service-access-token=${token}`;
    edge = await startFakeEdge({
      revokeApiKey: async () => ({ apiKey: sampleKey({ revokedAt: new Date() }) }),
      listApiKeys: async () => ({ active: [sampleKey()], revoked: [] }),
      logout: async () => ({}),
    });
  });
  afterAll(() => edge.stop());

  const revoke = (options: CallOptions) => call(edge.url, revokePath, { method: 'POST', ...options });

  it.each([
    ['the cookie alone (a cross-site form)', {}],
    ['the cookie and a cross-site Sec-Fetch-Site', { 'sec-fetch-site': 'cross-site' }],
    ['the cookie and a same-site (sibling subdomain) Sec-Fetch-Site', { 'sec-fetch-site': 'same-site' }],
    ['the header, but sent from another origin', { 'x-service-csrf': '1', 'sec-fetch-site': 'same-site' }],
    ['the header with another value', { 'x-service-csrf': 'yes' }],
  ])('refuses a cookie-authenticated change with %s: 403 permission, before any backend call', async (_case, headers) => {
    const before = edge.auth.calls.revokeApiKey.length;
    const error = expectError(await revoke({ cookie, headers }), 403, 'permission');
    expect(error.message).toMatch(/^Cross-site request refused: .*"X-Service-CSRF: 1"/);
    expect(edge.auth.calls.revokeApiKey).toHaveLength(before);
  });

  it('lets the page of this origin through: the header, and Sec-Fetch-Site same-origin or absent', async () => {
    const allowed: Array<Record<string, string>> = [{ 'x-service-csrf': '1', 'sec-fetch-site': 'same-origin' }, { 'x-service-csrf': '1' }];
    for (const headers of allowed) {
      expect((await revoke({ cookie, headers })).status).toBe(200);
    }
  });

  it('leaves bearer clients unchanged, with or without a stray cookie', async () => {
    expect((await revoke({ bearer: token })).status).toBe(200);
    expect((await revoke({ bearer: token, cookie })).status).toBe(200);
  });

  it('leaves reads alone, and a request without a session cookie to authentication', async () => {
    expect((await call(edge.url, `/api/v1/orgs/${ORG_ID}/keys`, { cookie })).status).toBe(200);
    expectError(await revoke({ cookie: 'theme=dark' }), 401, 'auth');
  });

  it('guards sign-out by the refresh cookie and the agent API the same way', async () => {
    const logouts = edge.auth.calls.logout.length;
    const refreshCookie = `service-refresh-token=rt_${'cd'.repeat(32)}`;
    expectError(await call(edge.url, '/api/auth/v1/logout', { method: 'POST', cookie: refreshCookie }), 403, 'permission');
    expect(edge.auth.calls.logout).toHaveLength(logouts);
    expectError(await call(edge.url, '/api/agent/sessions', { method: 'POST', cookie, body: { title: 'x', category: 'general' } }), 403, 'permission');
    const allowed = await call(edge.url, '/api/auth/v1/logout', { method: 'POST', cookie: refreshCookie, headers: { 'x-service-csrf': '1' } });
    expect(allowed.status).toBe(204);
    expect(edge.auth.calls.logout.at(-1)).toEqual({ refreshToken: `rt_${'cd'.repeat(32)}` });
  });
});
