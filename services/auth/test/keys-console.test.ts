import { createHash } from 'node:crypto';
import { ApiKeyStatus, InferenceMode, type ApiKey } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { findCredentials } from '../../../test/support/secrets-scan';
import { deleteAgentInstance } from '../src/agents/delete';
import { createApiKey } from '../src/keys/create';
import { latestExpiry } from '../src/keys/expiry';
import { generateKey } from '../src/keys/format';
import { failureOf } from './support/failure';
import { AUTH_START_TIMEOUT_MS, startAuth, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedAgent, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/** Console key management over gRPC against a real auth process: roles, scopes, expiry, binding, audit. */
let database: AuthTestDatabase;
let auth: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('keys_console');
  auth = await startAuth(database.url);
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await auth?.stop();
  await database?.drop();
});

const DAY_MS = 86_400_000;
const VALID_LIST = 'valid scopes are inference, usage:read, agents:read, agents:write';

function keyOf(response: { apiKey?: ApiKey | undefined }): ApiKey {
  if (!response.apiKey) throw new Error('response carries no key');
  return response.apiKey;
}

async function keyCount(organizationId: string): Promise<number> {
  const { count } = await database.db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

describe('CreateApiKey', () => {
  it('returns the whole key once and stores only its SHA-256, with the default scopes', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: '  deploy bot  ', agentId: '' });
    const apiKey = keyOf(created);
    expect(created.secret).toMatch(/^svc_test_[0-9a-f]{56}$/);
    expect(apiKey).toMatchObject({
      organizationId: organization.id,
      name: 'deploy bot',
      prefix: created.secret.slice(0, 17),
      scopes: ['inference', 'usage:read'],
      agentId: '',
      status: ApiKeyStatus.API_KEY_STATUS_ACTIVE,
      createdByUserId: owner,
      expiresAt: undefined,
      lastUsedAt: undefined,
      revokedAt: undefined,
    });
    const row = await database.db.selectFrom('api_keys').selectAll().where('id', '=', apiKey.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(createHash('sha256').update(created.secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(17));
  });

  it('grants the vestigial agent scopes when asked, collapsing duplicates', async () => {
    const { organization, admin } = await seedOrganizationWithRoles(database.db);
    const created = await auth.client.createApiKey({
      actorUserId: admin,
      organizationId: organization.id,
      name: 'old integration',
      agentId: '',
      scopes: { names: ['agents:write', 'inference', 'agents:read', 'agents:write'] },
    });
    expect(keyOf(created).scopes).toEqual(['inference', 'agents:read', 'agents:write']);
  });

  it('rejects an unknown scope, listing the valid scopes, and creates nothing', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(
      auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '', scopes: { names: ['inference', 'admin'] } }),
    );
    expect(error).toMatchObject({ kind: 'validation', field: 'scopes' });
    expect(error.message).toContain('"admin"');
    expect(error.message).toContain(VALID_LIST);
    expect(await keyCount(organization.id)).toBe(0);
  });

  it('rejects an empty scope set', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(
      auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '', scopes: { names: [] } }),
    );
    expect(error).toMatchObject({ kind: 'validation', field: 'scopes' });
    expect(error.message).toContain(VALID_LIST);
  });

  it.each([
    ['', 'is required'],
    ['   ', 'is required'],
    ['x'.repeat(101), 'at most 100 characters'],
  ])('rejects the name %j', async (name, expected) => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name, agentId: '' }));
    expect(error).toMatchObject({ kind: 'validation', field: 'name' });
    expect(error.message).toContain(expected);
  });

  it('rejects ids that are not UUIDs, naming the field', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(auth.client.createApiKey({ actorUserId: owner, organizationId: 'acme', name: 'k', agentId: '' }));
    expect(error).toMatchObject({ kind: 'validation', field: 'organization_id' });
    const agentError = await failureOf(auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '42' }));
    expect(agentError).toMatchObject({ kind: 'validation', field: 'agent_id' });
  });
});

describe('expiry', () => {
  it.each([30, 90, 365, 3650])('accepts the %i-day expiry', async (days) => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const before = Date.now();
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '', expiresInDays: days });
    const after = Date.now();
    const expiresAt = keyOf(created).expiresAt?.getTime() ?? Number.NaN;
    expect(expiresAt).toBeGreaterThanOrEqual(before + days * DAY_MS);
    expect(expiresAt).toBeLessThanOrEqual(after + days * DAY_MS);
  });

  it.each([0, -1, 3651])('rejects expires_in_days %i', async (days) => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(
      auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '', expiresInDays: days }),
    );
    expect(error).toMatchObject({ kind: 'validation', field: 'expires_in_days' });
    expect(error.message).toContain('1 to 3650');
  });

  it('accepts an absolute expiry up to ten calendar years ahead', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const at = new Date(latestExpiry(new Date()).exclusiveEnd.getTime() - 60_000);
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '', expiresAt: at });
    expect(keyOf(created).expiresAt).toEqual(at);
  });

  it.each([
    ['in the past', -60_000, 'must be in the future'],
    ['beyond ten calendar years', latestExpiry(new Date()).exclusiveEnd.getTime() - Date.now(), 'at most ten calendar years'],
  ])('rejects an absolute expiry %s', async (_label, offsetMs, expected) => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(
      auth.client.createApiKey({
        actorUserId: owner,
        organizationId: organization.id,
        name: 'k',
        agentId: '',
        expiresAt: new Date(Date.now() + offsetMs),
      }),
    );
    expect(error).toMatchObject({ kind: 'validation', field: 'expires_at' });
    expect(error.message).toContain(expected);
  });

  it('rejects both expires_in_days and expires_at at once', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const error = await failureOf(
      auth.client.createApiKey({
        actorUserId: owner,
        organizationId: organization.id,
        name: 'k',
        agentId: '',
        expiresInDays: 30,
        expiresAt: new Date(Date.now() + 90 * DAY_MS),
      }),
    );
    expect(error).toMatchObject({ kind: 'validation', field: 'expires_at' });
    expect(error.message).toContain('not both');
  });

  it('lists an expired key as EXPIRED among the active ones, and rejects it with 401', async () => {
    const { organization, owner, member } = await seedOrganizationWithRoles(database.db);
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '', expiresInDays: 30 });
    await database.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', keyOf(created).id).execute();
    const listing = await auth.client.listApiKeys({ actorUserId: member, organizationId: organization.id });
    expect(listing.active.map((key) => [key.id, key.status])).toEqual([[keyOf(created).id, ApiKeyStatus.API_KEY_STATUS_EXPIRED]]);
    expect(await failureOf(auth.client.authenticate({ credential: created.secret, agentId: '' }))).toMatchObject({ kind: 'auth' });
  });
});

describe('roles', () => {
  it('lets owners and admins create, edit and revoke; members get permission naming the roles needed', async () => {
    const { organization, owner, admin, member } = await seedOrganizationWithRoles(database.db);
    const organizationId = organization.id;
    for (const actorUserId of [owner, admin]) {
      const apiKey = keyOf(await auth.client.createApiKey({ actorUserId, organizationId, name: 'k', agentId: '' }));
      await auth.client.updateApiKey({ actorUserId, organizationId, apiKeyId: apiKey.id, name: 'renamed' });
      await auth.client.revokeApiKey({ actorUserId, organizationId, apiKeyId: apiKey.id });
    }
    const target = keyOf(await auth.client.createApiKey({ actorUserId: owner, organizationId, name: 'k', agentId: '' }));
    const denied = await Promise.all([
      failureOf(auth.client.createApiKey({ actorUserId: member, organizationId, name: 'k', agentId: '' })),
      failureOf(auth.client.updateApiKey({ actorUserId: member, organizationId, apiKeyId: target.id, name: 'mine now' })),
      failureOf(auth.client.revokeApiKey({ actorUserId: member, organizationId, apiKeyId: target.id })),
    ]);
    for (const error of denied) {
      expect(error.kind).toBe('permission');
      expect(error.message).toContain('owner or an admin');
      expect(error.message).toContain('your role is member');
    }
    const untouched = await database.db.selectFrom('api_keys').select(['name', 'revoked_at']).where('id', '=', target.id).executeTakeFirstOrThrow();
    expect(untouched).toEqual({ name: 'k', revoked_at: null });
  });

  it('lets any member list', async () => {
    const { organization, owner, admin, member } = await seedOrganizationWithRoles(database.db);
    const apiKey = keyOf(await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' }));
    for (const actorUserId of [owner, admin, member]) {
      const listing = await auth.client.listApiKeys({ actorUserId, organizationId: organization.id });
      expect(listing.active.map((key) => key.id)).toEqual([apiKey.id]);
    }
  });

  it('answers not_found to someone outside the organization, as for an organization that does not exist', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const other = await seedOrganizationWithRoles(database.db);
    const apiKey = keyOf(await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' }));
    const outsider = other.owner;
    const errors = await Promise.all([
      failureOf(auth.client.listApiKeys({ actorUserId: outsider, organizationId: organization.id })),
      failureOf(auth.client.createApiKey({ actorUserId: outsider, organizationId: organization.id, name: 'k', agentId: '' })),
      failureOf(auth.client.revokeApiKey({ actorUserId: outsider, organizationId: organization.id, apiKeyId: apiKey.id })),
      failureOf(auth.client.listApiKeys({ actorUserId: outsider, organizationId: '00000000-0000-4000-8000-000000000000' })),
    ]);
    for (const error of errors) expect({ kind: error.kind, message: error.message }).toEqual({ kind: 'not_found', message: 'Organization not found.' });
  });
});

describe('agent binding', () => {
  it('binds an agent record of the same organization only', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const foreign = await seedOrganizationWithRoles(database.db);
    const ownAgent = await seedAgent(database.db, organization.id);
    const foreignAgent = await seedAgent(database.db, foreign.organization.id);

    const bound = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'bound', agentId: ownAgent.id });
    expect(keyOf(bound).agentId).toBe(ownAgent.id);

    const foreignError = await failureOf(
      auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: foreignAgent.id }),
    );
    const missingError = await failureOf(
      auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(foreignError).toMatchObject({ kind: 'validation', field: 'agent_id' });
    // Another organization's agent is indistinguishable from no agent at all.
    expect(foreignError.message).toBe(missingError.message);
  });

  it('keeps a key working as an organization key when its agent record is deleted', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db, 'scale');
    const agent = await seedAgent(database.db, organization.id, { ai_model: 'gpt-4o', mode: 'byok', plan_tier: 'starter' });
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'bound', agentId: agent.id });
    const before = await auth.client.authenticate({ credential: created.secret, agentId: '' });
    expect(before.principal).toMatchObject({ agentId: agent.id, model: 'gpt-4o', mode: InferenceMode.INFERENCE_MODE_BYOK });

    await deleteAgentInstance(database.db, organization.id, agent.id);

    const after = await auth.client.authenticate({ credential: created.secret, agentId: '' });
    expect(after.principal).toMatchObject({
      organizationId: organization.id,
      apiKeyId: keyOf(created).id,
      agentId: '',
      model: 'auto',
      mode: InferenceMode.INFERENCE_MODE_MANAGED,
      planTier: 'scale',
    });
    const listing = await auth.client.listApiKeys({ actorUserId: owner, organizationId: organization.id });
    expect(listing.active[0]?.agentId).toBe('');
  });

  it('deletes only an agent record of the given organization', async () => {
    const { organization } = await seedOrganizationWithRoles(database.db);
    const other = await seedOrganizationWithRoles(database.db);
    const agent = await seedAgent(database.db, organization.id);
    await expect(deleteAgentInstance(database.db, other.organization.id, agent.id)).rejects.toMatchObject({ kind: 'not_found' });
    const still = await database.db.selectFrom('agent_instances').select('id').where('id', '=', agent.id).executeTakeFirst();
    expect(still).toEqual({ id: agent.id });
  });
});

describe('UpdateApiKey', () => {
  it('changes name and scopes without changing the secret', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' });
    const id = keyOf(created).id;
    const hashBefore = await database.db.selectFrom('api_keys').select('secret_hash').where('id', '=', id).executeTakeFirstOrThrow();

    const renamed = keyOf(await auth.client.updateApiKey({ actorUserId: owner, organizationId: organization.id, apiKeyId: id, name: 'billing export' }));
    expect(renamed).toMatchObject({ name: 'billing export', scopes: ['inference', 'usage:read'], prefix: keyOf(created).prefix });
    const rescoped = keyOf(
      await auth.client.updateApiKey({ actorUserId: owner, organizationId: organization.id, apiKeyId: id, scopes: { names: ['usage:read'] } }),
    );
    expect(rescoped).toMatchObject({ name: 'billing export', scopes: ['usage:read'] });

    const hashAfter = await database.db.selectFrom('api_keys').select('secret_hash').where('id', '=', id).executeTakeFirstOrThrow();
    expect(hashAfter).toEqual(hashBefore);
    const { principal } = await auth.client.authenticate({ credential: created.secret, agentId: '' });
    expect(principal?.scopes).toEqual(['usage:read']);
  });

  it('needs at least one change, valid scopes, a key of the organization, and an unrevoked key', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const other = await seedOrganizationWithRoles(database.db);
    const id = keyOf(await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' })).id;
    const foreignId = keyOf(await auth.client.createApiKey({ actorUserId: other.owner, organizationId: other.organization.id, name: 'k', agentId: '' })).id;
    const organizationId = organization.id;

    const nothing = await failureOf(auth.client.updateApiKey({ actorUserId: owner, organizationId, apiKeyId: id }));
    expect(nothing.kind).toBe('validation');
    expect(nothing.message).toContain('name or scopes');

    const unknownScope = await failureOf(
      auth.client.updateApiKey({ actorUserId: owner, organizationId, apiKeyId: id, scopes: { names: ['billing:write'] } }),
    );
    expect(unknownScope).toMatchObject({ kind: 'validation', field: 'scopes' });
    expect(unknownScope.message).toContain(VALID_LIST);

    const foreign = await failureOf(auth.client.updateApiKey({ actorUserId: owner, organizationId, apiKeyId: foreignId, name: 'x' }));
    expect(foreign).toMatchObject({ kind: 'not_found', field: 'api_key_id' });

    await auth.client.revokeApiKey({ actorUserId: owner, organizationId, apiKeyId: id });
    const revoked = await failureOf(auth.client.updateApiKey({ actorUserId: owner, organizationId, apiKeyId: id, name: 'x' }));
    expect(revoked.kind).toBe('conflict');
  });
});

describe('RevokeApiKey and ListApiKeys', () => {
  it('is idempotent: a second revoke keeps the first revoked_at', async () => {
    const { organization, owner, admin } = await seedOrganizationWithRoles(database.db);
    const id = keyOf(await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'k', agentId: '' })).id;
    const first = keyOf(await auth.client.revokeApiKey({ actorUserId: owner, organizationId: organization.id, apiKeyId: id }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = keyOf(await auth.client.revokeApiKey({ actorUserId: admin, organizationId: organization.id, apiKeyId: id }));
    expect(first.status).toBe(ApiKeyStatus.API_KEY_STATUS_REVOKED);
    expect(first.revokedAt).toBeInstanceOf(Date);
    expect(second.revokedAt).toEqual(first.revokedAt);
    const stored = await database.db.selectFrom('api_keys').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored.revoked_at).toEqual(first.revokedAt);
  });

  it('answers not_found for a key of another organization', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const other = await seedOrganizationWithRoles(database.db);
    const foreignId = keyOf(await auth.client.createApiKey({ actorUserId: other.owner, organizationId: other.organization.id, name: 'k', agentId: '' })).id;
    const error = await failureOf(auth.client.revokeApiKey({ actorUserId: owner, organizationId: organization.id, apiKeyId: foreignId }));
    expect(error).toMatchObject({ kind: 'not_found', field: 'api_key_id' });
    const stored = await database.db.selectFrom('api_keys').select('revoked_at').where('id', '=', foreignId).executeTakeFirstOrThrow();
    expect(stored.revoked_at).toBeNull();
  });

  it('lists revoked keys under their own heading, newest first', async () => {
    const { organization, owner, member } = await seedOrganizationWithRoles(database.db);
    const organizationId = organization.id;
    const ids: string[] = [];
    for (const name of ['first', 'second', 'third', 'fourth']) {
      ids.push(keyOf(await auth.client.createApiKey({ actorUserId: owner, organizationId, name, agentId: '' })).id);
    }
    await auth.client.revokeApiKey({ actorUserId: owner, organizationId, apiKeyId: ids[0] ?? '' });
    await auth.client.revokeApiKey({ actorUserId: owner, organizationId, apiKeyId: ids[2] ?? '' });
    const listing = await auth.client.listApiKeys({ actorUserId: member, organizationId });
    expect(listing.active.map((key) => key.name)).toEqual(['fourth', 'second']);
    expect(listing.revoked.map((key) => key.name)).toEqual(['third', 'first']);
    expect(listing.revoked.every((key) => key.status === ApiKeyStatus.API_KEY_STATUS_REVOKED)).toBe(true);
    expect(listing.active.every((key) => key.status === ApiKeyStatus.API_KEY_STATUS_ACTIVE)).toBe(true);
  });
});

describe('key_events', () => {
  it('records create, edit and revoke with the actor and what changed, never the secret', async () => {
    const { organization, owner, admin } = await seedOrganizationWithRoles(database.db);
    const organizationId = organization.id;
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId, name: 'k', agentId: '' });
    const id = keyOf(created).id;
    await auth.client.updateApiKey({ actorUserId: admin, organizationId, apiKeyId: id, name: 'k2', scopes: { names: ['inference'] } });
    await auth.client.revokeApiKey({ actorUserId: admin, organizationId, apiKeyId: id });
    await auth.client.revokeApiKey({ actorUserId: owner, organizationId, apiKeyId: id });

    const events = await database.db
      .selectFrom('key_events')
      .select(['action', 'actor_user_id', 'organization_id', 'detail'])
      .where('api_key_id', '=', id)
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      {
        action: 'created',
        actor_user_id: owner,
        organization_id: organizationId,
        detail: { name: 'k', scopes: ['inference', 'usage:read'], agent_id: null, expires_at: null },
      },
      {
        action: 'updated',
        actor_user_id: admin,
        organization_id: organizationId,
        detail: { before: { name: 'k', scopes: ['inference', 'usage:read'] }, after: { name: 'k2', scopes: ['inference'] } },
      },
      // The repeated revoke changed nothing and left no row.
      { action: 'revoked', actor_user_id: admin, organization_id: organizationId, detail: { name: 'k2' } },
    ]);
    const stored = await database.db.selectFrom('api_keys').select('secret_hash').where('id', '=', id).executeTakeFirstOrThrow();
    const text = JSON.stringify(events);
    expect(text).not.toContain(created.secret.slice(17));
    expect(text).not.toContain(stored.secret_hash);
  });
});

describe('selector collisions', () => {
  it('draws again when a new key collides with an existing prefix', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const actor = { userId: owner, organizationId: organization.id };
    const input = { name: 'k', scopes: ['inference' as const], agentId: null, expiry: null };
    const first = await createApiKey(database.db, 'test', actor, input);
    const taken = first.record.prefix;
    const draws: string[] = [];
    const second = await createApiKey(database.db, 'test', actor, input, {
      generate: (environment) => {
        const fresh = generateKey(environment);
        const drawn = draws.length === 0 ? { prefix: taken, key: taken + fresh.key.slice(17) } : fresh;
        draws.push(drawn.prefix);
        return drawn;
      },
    });
    expect(draws).toHaveLength(2);
    expect(second.record.prefix).not.toBe(taken);
    expect(second.key.slice(0, 17)).toBe(second.record.prefix);
  });

  it('gives up after a bounded number of draws', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db);
    const actor = { userId: owner, organizationId: organization.id };
    const input = { name: 'k', scopes: ['inference' as const], agentId: null, expiry: null };
    const taken = (await createApiKey(database.db, 'test', actor, input)).record.prefix;
    let draws = 0;
    const always = () => {
      draws += 1;
      return { prefix: taken, key: taken + 'e'.repeat(48) };
    };
    await expect(createApiKey(database.db, 'test', actor, input, { generate: always })).rejects.toMatchObject({ code: '23505' });
    expect(draws).toBe(5);
    expect(await keyCount(organization.id)).toBe(1);
  });
});

describe('logs', () => {
  it('hold no credential-shaped string', async () => {
    await auth.stop();
    expect(auth.process.logs()).toContain('"listening"');
    expect(findCredentials(auth.process.logs())).toEqual([]);
  });
});
