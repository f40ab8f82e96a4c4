import { DomainError, INVALID_CREDENTIAL_MESSAGE } from '@gateway/lib/errors';
import { ApiKeyStatus, InferenceMode, PrincipalKind } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { findCredentials } from '../../../test/support/secrets-scan';
import { AUTH_START_TIMEOUT_MS, authenticateOnTheWire, startAuth, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedAgent, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/**
 * Authenticate with organization API keys against a real auth process:
 * what a key grants, and that every rejection looks the same on the wire.
 */
let database: AuthTestDatabase;
let auth: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('keys_verify');
  auth = await startAuth(database.url);
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await auth?.stop();
  await database?.drop();
});

async function createKey(overrides: { agentId?: string; expiresInDays?: number } = {}) {
  const { organization, owner } = await seedOrganizationWithRoles(database.db, 'team');
  const created = await auth.client.createApiKey({
    actorUserId: owner,
    organizationId: organization.id,
    name: 'ci deploys',
    agentId: overrides.agentId ?? '',
    ...(overrides.expiresInDays === undefined ? {} : { expiresInDays: overrides.expiresInDays }),
  });
  if (!created.apiKey) throw new Error('CreateApiKey returned no key');
  return { organization, owner, key: created.secret, apiKey: created.apiKey };
}

/** Same selector, another secret of the right shape. */
function withWrongSecret(key: string): string {
  const last = key.at(-1) === '0' ? '1' : '0';
  return key.slice(0, -1) + last;
}

describe('Authenticate with an API key', () => {
  it('grants an organization-level principal for an unbound key', async () => {
    const { organization, key, apiKey } = await createKey();
    expect(apiKey.status).toBe(ApiKeyStatus.API_KEY_STATUS_ACTIVE);
    const { principal } = await auth.client.authenticate({ credential: key, agentId: '' });
    expect(principal).toEqual({
      kind: PrincipalKind.PRINCIPAL_KIND_API_KEY,
      organizationId: organization.id,
      apiKeyId: apiKey.id,
      agentId: '',
      scopes: ['inference', 'usage:read'],
      planTier: 'team',
      mode: InferenceMode.INFERENCE_MODE_MANAGED,
      model: 'auto',
      enforceQuota: true,
      providerKeyCiphertext: '',
      messagesLimit: '0',
    });
  });

  it('grants the bound agent record model, mode and plan tier, and attributes to it', async () => {
    const { organization, owner } = await seedOrganizationWithRoles(database.db, 'team');
    const agent = await seedAgent(database.db, organization.id, { ai_model: 'claude-3-haiku', mode: 'byok', plan_tier: 'legacy-pro' });
    const created = await auth.client.createApiKey({ actorUserId: owner, organizationId: organization.id, name: 'agent key', agentId: agent.id });
    const { principal } = await auth.client.authenticate({ credential: created.secret, agentId: '' });
    expect(principal).toMatchObject({
      kind: PrincipalKind.PRINCIPAL_KIND_API_KEY,
      organizationId: organization.id,
      apiKeyId: created.apiKey?.id,
      agentId: agent.id,
      model: 'claude-3-haiku',
      mode: InferenceMode.INFERENCE_MODE_BYOK,
      planTier: 'legacy-pro',
      enforceQuota: true,
      // BYOK: the stored ciphertext travels for the edge to decrypt; the limit feeds the legacy meter.
      providerKeyCiphertext: 'placeholder-ciphertext',
      messagesLimit: '1000',
    });
  });

  it('gives byte-identical rejections for revoked, wrong-secret, unknown, malformed and expired keys', async () => {
    const revoked = await createKey();
    await auth.client.revokeApiKey({ actorUserId: revoked.owner, organizationId: revoked.organization.id, apiKeyId: revoked.apiKey.id });
    const expired = await createKey({ expiresInDays: 30 });
    await database.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', expired.apiKey.id).execute();
    const live = await createKey();

    const presented = {
      'revoked key, right secret': revoked.key,
      'revoked key prefix, wrong secret': withWrongSecret(revoked.key),
      'live key prefix, wrong secret': withWrongSecret(live.key),
      'unknown selector': `svc_test_00000000${'ab'.repeat(24)}`,
      'malformed key': live.key.slice(0, -1),
      'key of the other environment': live.key.replace('svc_test_', 'svc_live_'),
      'expired key': expired.key,
      'unknown gateway token': `gwt_${'cd'.repeat(24)}`,
      'empty credential': '',
    };
    const failures = await Promise.all(Object.values(presented).map((credential) => authenticateOnTheWire(auth.process.address, credential)));
    const reference = failures[0];
    expect(reference).toEqual({ code: 16, details: INVALID_CREDENTIAL_MESSAGE, trailers: { 'content-type': ['application/grpc+proto'], 'x-error-class': ['auth'] } });
    failures.forEach((failure, index) => {
      expect({ case: Object.keys(presented)[index], failure }).toEqual({ case: Object.keys(presented)[index], failure: reference });
    });
    // The live key still works: the wrong secret did not disturb it.
    await expect(auth.client.authenticate({ credential: live.key, agentId: '' })).resolves.toBeDefined();
  });

  it('tells the reasons apart in its logs only, naming the prefix and never the key', async () => {
    const { key } = await createKey();
    await expect(auth.client.authenticate({ credential: withWrongSecret(key), agentId: '' })).rejects.toMatchObject({ kind: 'auth' });
    const prefix = key.slice(0, 17);
    await waitFor(() => auth.process.logs().includes(`wrong_secret (prefix ${prefix})`));
    expect(auth.process.logs()).not.toContain(key.slice(17));
  });

  it('rejects an agent id that is not a UUID as a validation error naming agent_id', async () => {
    const { key } = await createKey();
    const error = await auth.client.authenticate({ credential: key, agentId: 'agent-7' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'validation', field: 'agent_id' });
    expect((error as DomainError).message).toContain('agent_id');
  });

  it('leaves no credential-shaped string in the process logs', async () => {
    await auth.stop();
    expect(findCredentials(auth.process.logs())).toEqual([]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
