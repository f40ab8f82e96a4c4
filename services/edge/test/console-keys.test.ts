import { createAgent, createOrganization } from '@gateway/auth/admin';
import type { AuthDatabase } from '@gateway/auth/db';
import type { Database } from '@gateway/lib/db';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { findCredentials } from '../../../test/support/secrets-scan';
import type { KeyJson, OrganizationAgents, QuotaJson } from '../src/contract';
import { call, expectError, type CallOptions, type JsonResponse } from './support/http';
import { connectAuthDatabase, seedAccount, signIn, type Role } from './support/seed';
import { STARTUP_TIMEOUT_MS, startEdgeStack, type EdgeStack } from './support/stack';

/**
 * The Console key API through real edge and auth processes: who may do what,
 * the shape of a key, where the secret appears, and bad input; and the
 * organization routes the Console reads beside it (agent records, quota).
 */
const BODY_LIMIT_BYTES = 4096;
const DAY_MS = 86_400_000;

/** Now, ten years on by the calendar: the latest expiry the contract accepts (on a February 29, the day after). */
function tenCalendarYearsAhead(): Date {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + 10);
  return date;
}

interface Created {
  key: KeyJson;
  secret: string;
}

describe('Console key API (edge + auth processes)', () => {
  let database: TestDatabase;
  let auth: Database<AuthDatabase>;
  let stack: EdgeStack;
  let orgId: string;
  let agentId: string;
  /** Access tokens: one per role in the organization, and one of a member of another organization. */
  const tokens = {} as Record<Role | 'outsider', string>;

  beforeAll(async () => {
    database = await createTestDatabase('edge_console_keys');
    stack = await startEdgeStack({ databaseUrl: database.url, edgeEnv: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) } });
    auth = connectAuthDatabase(database.url);
    orgId = (await createOrganization(auth.db, { name: 'Acme', plan: 'pro' })).id;
    const otherOrgId = (await createOrganization(auth.db, { name: 'Globex', plan: 'starter' })).id;
    agentId = (await createAgent(auth.db, { org: orgId })).id;
    const seeded: Array<[Role | 'outsider', string, Role]> = [
      ['owner', orgId, 'owner'],
      ['admin', orgId, 'admin'],
      ['member', orgId, 'member'],
      ['outsider', otherOrgId, 'owner'],
    ];
    for (const [name, org, role] of seeded) {
      const account = await seedAccount(auth.db, name, { org, role });
      tokens[name] = (await signIn(stack.url, account)).accessToken;
    }
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
    await auth?.destroy();
    await database?.drop();
  });

  const keysPath = (org = orgId) => `/api/v1/orgs/${org}/keys`;
  const as = (who: Role | 'outsider', options: CallOptions = {}): CallOptions => ({ ...options, bearer: tokens[who] });

  async function createKey(body: Record<string, unknown> = {}, who: Role = 'owner'): Promise<Created> {
    const response = await call<Created>(stack.url, keysPath(), as(who, { method: 'POST', body: { name: 'key', ...body } }));
    if (response.status !== 201) throw new Error(`create answered ${response.status}: ${response.text}`);
    return response.body;
  }

  describe('role enforcement on every route', () => {
    /** Each route, with what a successful call answers. */
    const routes: Array<{ name: string; status: number; run: (who: Role | 'outsider') => Promise<JsonResponse> }> = [
      { name: 'list', status: 200, run: (who) => call(stack.url, keysPath(), as(who)) },
      { name: 'create', status: 201, run: (who) => call(stack.url, keysPath(), as(who, { method: 'POST', body: { name: `by ${who}` } })) },
      {
        name: 'edit',
        status: 200,
        run: async (who) => {
          const { key } = await createKey();
          return call(stack.url, `${keysPath()}/${key.id}`, as(who, { method: 'PATCH', body: { name: `renamed by ${who}` } }));
        },
      },
      {
        name: 'revoke',
        status: 200,
        run: async (who) => {
          const { key } = await createKey();
          return call(stack.url, `${keysPath()}/${key.id}/revoke`, as(who, { method: 'POST' }));
        },
      },
    ];

    describe.each(routes)('$name', ({ name, status, run }) => {
      it.each(['owner', 'admin'] as const)('is allowed to an %s', async (who) => {
        expect((await run(who)).status).toBe(status);
      });

      it(name === 'list' ? 'is allowed to a member' : 'is refused to a member with 403 permission', async () => {
        const response = await run('member');
        if (name === 'list') expect(response.status).toBe(200);
        else expect(expectError(response, 403, 'permission').message).toMatch(/owner or an admin/);
      });

      it('is refused to someone outside the organization', async () => {
        const response = await run('outsider');
        // The auth service answers as for an organization that does not exist.
        expectError(response, 404, 'not_found');
      });
    });
  });

  it('works with the session cookie as well as the bearer token', async () => {
    const response = await call(stack.url, keysPath(), { cookie: `service-access-token=${tokens.member}` });
    expect(response.status).toBe(200);
  });

  it('creates an organization-level key with the default scopes, and shows its secret only then', async () => {
    const created = await call<Created>(stack.url, keysPath(), as('admin', { method: 'POST', body: { name: 'ci' } }));
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { key, secret } = created.body;
    expect(secret).toMatch(/^svc_test_[0-9a-f]{56}$/);
    expect(secret.startsWith(key.prefix)).toBe(true);
    expect(key).toEqual({
      id: expect.any(String),
      name: 'ci',
      prefix: expect.stringMatching(/^svc_test_[0-9a-f]{8}$/),
      scopes: ['inference', 'usage:read'],
      bound_to: { type: 'organization' },
      status: 'active',
      expires_at: null,
      last_used_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      revoked_at: null,
    });

    const listed = await call(stack.url, keysPath(), as('member'));
    const patched = await call(stack.url, `${keysPath()}/${key.id}`, as('owner', { method: 'PATCH', body: { scopes: ['inference'] } }));
    const revoked = await call(stack.url, `${keysPath()}/${key.id}/revoke`, as('owner', { method: 'POST' }));
    for (const response of [listed, patched, revoked]) {
      expect(response.status).toBe(200);
      expect(response.text).not.toContain(secret);
      expect(findCredentials(response.text)).toEqual([]);
    }
  });

  it('shows a key bound to an agent record as bound_to agent', async () => {
    const { key } = await createKey({ agent_id: agentId, scopes: ['inference'] });
    expect(key.bound_to).toEqual({ type: 'agent', agent_id: agentId });
    expect(key.scopes).toEqual(['inference']);
  });

  it('edits name and scopes, keeping the rest', async () => {
    const { key } = await createKey({ name: 'before' });
    const response = await call<KeyJson>(
      stack.url,
      `${keysPath()}/${key.id}`,
      as('admin', { method: 'PATCH', body: { name: 'after', scopes: ['usage:read', 'agents:read'] } }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...key, name: 'after', scopes: expect.arrayContaining(['usage:read', 'agents:read']) });
    expect(response.body.scopes).toHaveLength(2);
  });

  it('lists revoked keys under their own heading; revoking again keeps the first timestamp', async () => {
    const { key } = await createKey({ name: 'to revoke' });
    const first = await call<KeyJson>(stack.url, `${keysPath()}/${key.id}/revoke`, as('owner', { method: 'POST' }));
    expect(first.body).toMatchObject({ id: key.id, status: 'revoked', revoked_at: expect.any(String) });
    const second = await call<KeyJson>(stack.url, `${keysPath()}/${key.id}/revoke`, as('admin', { method: 'POST', body: {} }));
    expect(second.body.revoked_at).toBe(first.body.revoked_at);

    const listed = await call<{ active: KeyJson[]; revoked: KeyJson[] }>(stack.url, keysPath(), as('member'));
    expect(listed.body.revoked).toContainEqual(second.body);
    expect(listed.body.active.map(({ id }) => id)).not.toContain(key.id);
  });

  it('accepts an expiry in days or at a time, up to ten years', async () => {
    const before = Date.now();
    const { key: inDays } = await createKey({ expires_in_days: 30 });
    const expires = Date.parse(inDays.expires_at ?? '');
    expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY_MS);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);
    const at = tenCalendarYearsAhead().toISOString();
    expect((await createKey({ expires_at: at })).key.expires_at).toBe(at);
  });

  it.each([
    [{ expires_in_days: 0 }, 'expires_in_days'],
    [{ expires_in_days: 3651 }, 'expires_in_days'],
    [{ expires_at: new Date(Date.now() - DAY_MS).toISOString() }, 'expires_at'],
    [{ expires_at: new Date(tenCalendarYearsAhead().getTime() + DAY_MS).toISOString() }, 'expires_at'],
    [{ expires_in_days: 30, expires_at: new Date(Date.now() + DAY_MS).toISOString() }, 'expires_at'],
  ])('rejects the expiry %j with 400 naming %s', async (expiry, field) => {
    const response = await call(stack.url, keysPath(), as('owner', { method: 'POST', body: { name: 'k', ...expiry } }));
    expect(expectError(response, 400, 'validation').message).toContain(field);
  });

  it('rejects an unknown scope at creation and at edit, listing the valid scopes', async () => {
    const { key } = await createKey();
    const attempts = [
      call(stack.url, keysPath(), as('owner', { method: 'POST', body: { name: 'k', scopes: ['inference', 'admin:all'] } })),
      call(stack.url, `${keysPath()}/${key.id}`, as('owner', { method: 'PATCH', body: { scopes: ['admin:all'] } })),
    ];
    for (const response of await Promise.all(attempts)) {
      const { message } = expectError(response, 400, 'validation');
      expect(message).toContain('admin:all');
      for (const scope of ['inference', 'usage:read', 'agents:read', 'agents:write']) expect(message).toContain(scope);
    }
  });

  it.each<[string, number, RegExp, CallOptions & { path?: string }]>([
    ['malformed JSON', 400, /not valid JSON/, { method: 'POST', body: '{"name": ' }],
    ['an oversize body', 413, /larger than the limit/, { method: 'POST', body: { name: 'x'.repeat(BODY_LIMIT_BYTES) } }],
    ['an unknown field', 400, /unknown field "environment"/, { method: 'POST', body: { name: 'k', environment: 'live' } }],
    ['a bad organization id', 400, /path parameter "org" must be a UUID/, { path: '/api/v1/orgs/acme/keys' }],
    ['a bad key id', 400, /path parameter "id" must be a UUID/, { method: 'PATCH', path: 'not-a-uuid', body: { name: 'x' } }],
  ])('answers %s with %d validation, carrying the request id of the header', async (_label, status, message, { path, ...options }) => {
    const target = path === undefined ? keysPath() : path.startsWith('/') ? path : `${keysPath()}/${path}`;
    const response = await call(stack.url, target, as('owner', options));
    expect(expectError(response, status, 'validation').message).toMatch(message);
  });

  it('answers an unknown key with 404', async () => {
    const response = await call(stack.url, `${keysPath()}/00000000-0000-4000-8000-000000000000/revoke`, as('owner', { method: 'POST' }));
    expectError(response, 404, 'not_found');
  });

  describe('beside the keys: the agent records to bind one to, and the allowance', () => {
    it('lists the organization’s agent records to any member, newest first, with the owner’s email', async () => {
      const owner = await seedAccount(auth.db, 'agent-owner', { org: orgId, role: 'member' });
      const owned = await createAgent(auth.db, { org: orgId, ownerEmail: owner.email, model: 'gpt-4.1-mini' });
      const response = await call<OrganizationAgents>(stack.url, `/api/v1/orgs/${orgId}/agents`, as('member'));
      expect(response.status).toBe(200);
      expect(response.body.agents[0]).toEqual({
        id: owned.id,
        owner_email: owner.email,
        status: 'running',
        ai_model: 'gpt-4.1-mini',
        plan_tier: 'pro',
        mode: 'managed',
        created_at: expect.any(String),
      });
      expect(response.body.agents.map(({ id }) => id)).toContain(agentId);
      expect(response.body.agents.find(({ id }) => id === agentId)?.owner_email).toBeNull();
    });

    it('answers the month’s allowance of the organization’s plan, with what calls in flight hold, to any member', async () => {
      const now = new Date();
      for (const who of ['owner', 'member'] as const) {
        const response = await call<QuotaJson>(stack.url, `/api/v1/orgs/${orgId}/quota`, as(who));
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          meter: 'spend',
          allowance_usd: '200.000000',
          spent_usd: '0.000000',
          held_usd: '0.000000',
          remaining_usd: '200.000000',
          resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
        });
      }
    });

    it.each(['agents', 'quota'])('answers a non-member 404 on %s, as for an organization that does not exist, and needs a session', async (route) => {
      const foreign = expectError(await call(stack.url, `/api/v1/orgs/${orgId}/${route}`, as('outsider')), 404, 'not_found');
      const missing = expectError(await call(stack.url, `/api/v1/orgs/00000000-0000-4000-8000-000000000000/${route}`, as('outsider')), 404, 'not_found');
      expect(foreign.message).toBe(missing.message);
      expectError(await call(stack.url, `/api/v1/orgs/${orgId}/${route}`), 401, 'auth');
    });
  });

  it('logged no credential in either process', () => {
    expect(stack.loggedCredentials()).toEqual([]);
  });
});
