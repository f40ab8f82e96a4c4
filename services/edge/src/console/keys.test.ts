import { signAccessToken } from '@gateway/lib/access-token';
import { ApiKeyStatus } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { AGENT_ID, ORG_ID, TEST_SECRET, USER_ID, sampleKey, startFakeEdge, type RunningFakeEdge } from '../../test/support/fake-auth';
import { call, expectError } from '../../test/support/http';

const SECRET = `svc_test_0a1b2c3d${'e'.repeat(48)}`;
const KEY_ID = sampleKey().id;
const keysPath = `/api/v1/orgs/${ORG_ID}/keys`;

describe('Console key routes', () => {
  let edge: RunningFakeEdge;
  let bearer: string;

  beforeAll(async () => {
    bearer = await signAccessToken({ userId: USER_ID, email: 'owner@example.com' }, TEST_SECRET, 900);
    edge = await startFakeEdge({
      listApiKeys: async () => ({
        active: [sampleKey(), sampleKey({ id: 'b0000000-0000-4000-8000-000000000000', status: ApiKeyStatus.API_KEY_STATUS_EXPIRED })],
        revoked: [sampleKey({ id: 'c0000000-0000-4000-8000-000000000000', status: ApiKeyStatus.API_KEY_STATUS_REVOKED, revokedAt: new Date(0) })],
      }),
      createApiKey: async ({ name, agentId }) => ({ apiKey: sampleKey({ name, agentId }), secret: SECRET }),
      updateApiKey: async ({ name }) => ({ apiKey: sampleKey({ name: name ?? 'ci' }) }),
      revokeApiKey: async () => ({ apiKey: sampleKey({ status: ApiKeyStatus.API_KEY_STATUS_REVOKED, revokedAt: new Date(0) }) }),
    });
  });
  afterAll(() => edge.stop());

  it('lists active and revoked keys for the signed-in actor', async () => {
    const response = await call<{ active: Array<{ status: string }>; revoked: Array<{ status: string; revoked_at: string }> }>(edge.url, keysPath, {
      bearer,
    });
    expect(response.status).toBe(200);
    expect(response.body.active.map(({ status }) => status)).toEqual(['active', 'expired']);
    expect(response.body.revoked).toEqual([expect.objectContaining({ status: 'revoked', revoked_at: '1970-01-01T00:00:00.000Z' })]);
    expect(edge.auth.calls.listApiKeys.at(-1)).toEqual({ actorUserId: USER_ID, organizationId: ORG_ID });
  });

  it('creates a key: 201, the secret once, never cached', async () => {
    const response = await call<{ key: { bound_to: unknown; name: string }; secret: string }>(edge.url, keysPath, {
      method: 'POST',
      bearer,
      body: { name: 'agent key', scopes: ['inference'], agent_id: AGENT_ID, expires_in_days: 90 },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.secret).toBe(SECRET);
    expect(response.body.key).toMatchObject({ name: 'agent key', bound_to: { type: 'agent', agent_id: AGENT_ID } });
    expect(edge.auth.calls.createApiKey.at(-1)).toEqual({
      actorUserId: USER_ID,
      organizationId: ORG_ID,
      name: 'agent key',
      scopes: { names: ['inference'] },
      agentId: AGENT_ID,
      expiresInDays: 90,
      expiresAt: undefined,
    });
  });

  it('leaves scopes and binding unset when they are not given, and passes an absolute expiry', async () => {
    await call(edge.url, keysPath, { method: 'POST', bearer, body: { name: 'plain', expires_at: '2030-05-01T00:00:00+02:00' } });
    expect(edge.auth.calls.createApiKey.at(-1)).toEqual(
      expect.objectContaining({ scopes: undefined, agentId: '', expiresInDays: undefined, expiresAt: new Date('2030-04-30T22:00:00Z') }),
    );
  });

  it('edits and revokes, answering the key without its secret', async () => {
    const patched = await call(edge.url, `${keysPath}/${KEY_ID}`, { method: 'PATCH', bearer, body: { name: 'renamed', scopes: ['usage:read'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: KEY_ID, name: 'renamed' });
    expect(edge.auth.calls.updateApiKey.at(-1)).toEqual({
      actorUserId: USER_ID,
      organizationId: ORG_ID,
      apiKeyId: KEY_ID,
      name: 'renamed',
      scopes: { names: ['usage:read'] },
    });
    const revoked = await call(edge.url, `${keysPath}/${KEY_ID}/revoke`, { method: 'POST', bearer });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: KEY_ID, status: 'revoked' });
    for (const response of [patched, revoked]) expect(response.text).not.toContain('svc_test_0a1b2c3de');
  });

  it.each([
    ['GET', '/api/v1/orgs/acme/keys', undefined, 'path parameter "org" must be a UUID'],
    ['PATCH', `${keysPath}/12`, { name: 'x' }, 'path parameter "id" must be a UUID'],
    ['POST', `${keysPath}/12/revoke`, undefined, 'path parameter "id" must be a UUID'],
    ['POST', keysPath, { scopes: ['inference'] }, 'body field "name" is required'],
    ['POST', keysPath, { name: '  ' }, 'body field "name" must not be empty'],
    ['POST', keysPath, { name: 'x', owner: 'me' }, 'unknown field "owner"'],
    ['POST', keysPath, { name: 'x', scopes: 'inference' }, 'body field "scopes" must be an array'],
    ['POST', keysPath, { name: 'x', agent_id: 'agent-1' }, 'body field "agent_id" must be a UUID'],
    ['POST', keysPath, { name: 'x', expires_in_days: 0 }, 'body field "expires_in_days" must be at least 1'],
    ['POST', keysPath, { name: 'x', expires_in_days: 3651 }, 'body field "expires_in_days" must be at most 3650'],
    ['POST', keysPath, { name: 'x', expires_at: 'next year' }, 'body field "expires_at" must be an ISO-8601 date-time'],
    ['POST', keysPath, { name: 'x', expires_in_days: 30, expires_at: '2030-01-01T00:00:00Z' }, 'body field "expires_at" cannot be given together with expires_in_days'],
    ['PATCH', `${keysPath}/${KEY_ID}`, {}, 'must change at least one of: name, scopes'],
    ['PATCH', `${keysPath}/${KEY_ID}`, { name: 'x', agent_id: AGENT_ID }, 'unknown field "agent_id"'],
    ['POST', `${keysPath}/${KEY_ID}/revoke`, { reason: 'leaked' }, 'unknown field "reason"'],
  ])('%s %s with %j is a 400 naming the problem', async (method, path, body, message) => {
    const before = Object.values(edge.auth.calls).reduce((total, calls) => total + calls.length, 0);
    const response = await call(edge.url, path, { method, bearer, ...(body === undefined ? {} : { body }) });
    expect(expectError(response, 400, 'validation').message).toContain(message);
    expect(Object.values(edge.auth.calls).reduce((total, calls) => total + calls.length, 0)).toBe(before);
  });

  it.each([
    ['GET', keysPath],
    ['POST', keysPath],
    ['PATCH', `${keysPath}/${KEY_ID}`],
    ['POST', `${keysPath}/${KEY_ID}/revoke`],
  ])('%s %s needs a session, and refuses an API key', async (method, path) => {
    expectError(await call(edge.url, path, { method }), 401, 'auth');
    const withKey = await call(edge.url, path, { method, bearer: SECRET });
    expect(expectError(withKey, 401, 'auth').message).toMatch(/signed-in session/);
  });
});
