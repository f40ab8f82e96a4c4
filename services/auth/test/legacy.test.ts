import { DomainError } from '@gateway/lib/errors';
import { InferenceMode, PrincipalKind } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { findCredentials } from '../../../test/support/secrets-scan';
import { issueGatewayToken, issuePlatformAgentSecret } from '../src/legacy/issue';
import { AUTH_START_TIMEOUT_MS, authenticateOnTheWire, startAuth, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedAgent, seedOrganization, type AuthTestDatabase } from './support/seed';

/**
 * Legacy credentials (docs/api.md#authentication, docs/api.md): the per-agent gateway token and
 * the platform agent secret with an agent id, issued only by code (the admin
 * command line), attributed to their agent record, never quota-enforced.
 */
let database: AuthTestDatabase;
let auth: RunningAuth;

beforeAll(async () => {
  database = await createAuthTestDatabase('legacy');
  auth = await startAuth(database.url);
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await auth?.stop();
  await database?.drop();
});

async function seedAgentOfNewOrganization() {
  const organization = await seedOrganization(database.db, 'team');
  const agent = await seedAgent(database.db, organization.id, { ai_model: 'gpt-4o-mini', mode: 'byok', plan_tier: 'messages-500' });
  return { organization, agent };
}

async function rejection(credential: string, agentId = '') {
  return auth.client.authenticate({ credential, agentId }).then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('per-agent gateway token', () => {
  it('authenticates as principal gateway_token of its agent record, inference only, not enforced', async () => {
    const { organization, agent } = await seedAgentOfNewOrganization();
    const token = await issueGatewayToken(database.db, agent.id);
    expect(token).toMatch(/^gwt_[0-9a-f]{48}$/);
    const { principal } = await auth.client.authenticate({ credential: token, agentId: '' });
    expect(principal).toEqual({
      kind: PrincipalKind.PRINCIPAL_KIND_GATEWAY_TOKEN,
      organizationId: organization.id,
      apiKeyId: '',
      agentId: agent.id,
      scopes: ['inference'],
      planTier: 'messages-500',
      mode: InferenceMode.INFERENCE_MODE_BYOK,
      model: 'gpt-4o-mini',
      enforceQuota: false,
      providerKeyCiphertext: 'placeholder-ciphertext',
      messagesLimit: '1000',
    });
  });

  it('stores only the hash, and a reissued token replaces the old one', async () => {
    const { agent } = await seedAgentOfNewOrganization();
    const old = await issueGatewayToken(database.db, agent.id);
    const fresh = await issueGatewayToken(database.db, agent.id);
    const row = await database.db.selectFrom('agent_instances').select('gateway_token_hash').where('id', '=', agent.id).executeTakeFirstOrThrow();
    expect(row.gateway_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.gateway_token_hash).not.toContain(fresh.slice(4));
    expect(await rejection(old)).toMatchObject({ kind: 'auth' });
    await expect(auth.client.authenticate({ credential: fresh, agentId: '' })).resolves.toBeDefined();
  });

  it('cannot be issued for an agent record that does not exist', async () => {
    await expect(issueGatewayToken(database.db, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('platform agent secret', () => {
  it('authenticates with an agent id as principal agent_secret of that agent record', async () => {
    const { organization, agent } = await seedAgentOfNewOrganization();
    const secret = await issuePlatformAgentSecret(database.db, 'billing worker');
    expect(secret).toMatch(/^pas_[0-9a-f]{48}$/);
    const { principal } = await auth.client.authenticate({ credential: secret, agentId: agent.id });
    expect(principal).toEqual({
      kind: PrincipalKind.PRINCIPAL_KIND_AGENT_SECRET,
      organizationId: organization.id,
      apiKeyId: '',
      agentId: agent.id,
      scopes: ['inference'],
      planTier: 'messages-500',
      mode: InferenceMode.INFERENCE_MODE_BYOK,
      model: 'gpt-4o-mini',
      enforceQuota: false,
      providerKeyCiphertext: 'placeholder-ciphertext',
      messagesLimit: '1000',
    });
  });

  it('acts for whichever existing agent record it names', async () => {
    const first = await seedAgentOfNewOrganization();
    const second = await seedAgentOfNewOrganization();
    const secret = await issuePlatformAgentSecret(database.db, 'scheduler');
    for (const { organization, agent } of [first, second]) {
      const { principal } = await auth.client.authenticate({ credential: secret, agentId: agent.id });
      expect(principal).toMatchObject({ organizationId: organization.id, agentId: agent.id });
    }
  });

  it('is refused with an unknown agent id, without an agent id, when revoked, or when wrong', async () => {
    const { agent } = await seedAgentOfNewOrganization();
    const secret = await issuePlatformAgentSecret(database.db, 'to be revoked');
    const cases = {
      'unknown agent id': [secret, '00000000-0000-4000-8000-000000000000'],
      'no agent id (tried as a gateway token)': [secret, ''],
      'wrong secret': [`pas_${'0'.repeat(48)}`, agent.id],
    } as const;
    for (const [label, [credential, agentId]] of Object.entries(cases)) {
      const error = await rejection(credential, agentId);
      expect({ label, error }).toEqual({ label, error: expect.any(DomainError) });
      expect({ label, kind: (error as DomainError).kind }).toEqual({ label, kind: 'auth' });
    }

    await auth.client.authenticate({ credential: secret, agentId: agent.id });
    await database.db.updateTable('platform_agent_secrets').set({ revoked_at: new Date() }).where('description', '=', 'to be revoked').execute();
    expect(await rejection(secret, agent.id)).toMatchObject({ kind: 'auth' });
  });

  it('is refused exactly like a bad API key on the wire', async () => {
    const { agent } = await seedAgentOfNewOrganization();
    const [badSecret, unknownAgent, badKey] = await Promise.all([
      authenticateOnTheWire(auth.process.address, `pas_${'1'.repeat(48)}`, agent.id),
      authenticateOnTheWire(auth.process.address, await issuePlatformAgentSecret(database.db, 'x'), '00000000-0000-4000-8000-000000000000'),
      authenticateOnTheWire(auth.process.address, `svc_test_${'2'.repeat(56)}`),
    ]);
    expect(badSecret).not.toBe('accepted');
    expect(unknownAgent).toEqual(badSecret);
    expect(badKey).toEqual(badSecret);
  });

  it('needs a description of who holds it', async () => {
    await expect(issuePlatformAgentSecret(database.db, '   ')).rejects.toMatchObject({ kind: 'validation', field: 'description' });
  });
});

it('leaves no credential-shaped string in the process logs', async () => {
  await auth.stop();
  expect(findCredentials(auth.process.logs())).toEqual([]);
});
