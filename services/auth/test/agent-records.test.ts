import { decryptSecret } from '@gateway/lib/cipher';
import { InferenceMode, type AgentRecord } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { failureOf } from './support/failure';
import { AUTH_START_TIMEOUT_MS, startAuth, type RunningAuth } from './support/auth-process';
import { createAuthTestDatabase, seedAgent, seedMember, seedOrganization, seedOrganizationWithRoles, type AuthTestDatabase } from './support/seed';

/**
 * The agent API's RPCs on the agent billing record (GetUserAgent,
 * UpdateAgentSettings) against a real auth process: ownership, the choice
 * among several records, another user's record, BYOK encryption at rest.
 */
let database: AuthTestDatabase;
let auth: RunningAuth;
const SECRETS_KEY = '5a'.repeat(32);

beforeAll(async () => {
  database = await createAuthTestDatabase('agent_records');
  auth = await startAuth(database.url, { SECRETS_KEY });
}, 2 * AUTH_START_TIMEOUT_MS);

afterAll(async () => {
  await auth?.stop();
  await database?.drop();
});

function recordOf(response: { agent?: AgentRecord | undefined }): AgentRecord {
  if (!response.agent) throw new Error('response carries no agent record');
  return response.agent;
}

/** An organization, a member who owns one agent record, and the record. */
async function ownerWithAgent(planTier = 'starter') {
  const organization = await seedOrganization(database.db, planTier);
  const userId = await seedMember(database.db, organization.id, 'member');
  const agent = await seedAgent(database.db, organization.id, { owner_user_id: userId, plan_tier: planTier, ai_model: 'auto' });
  return { organization, userId, agent };
}

describe('GetUserAgent', () => {
  it('finds the record the user owns, without its key material', async () => {
    const { organization, userId, agent } = await ownerWithAgent();
    const record = recordOf(await auth.client.getUserAgent({ userId, agentId: '' }));
    expect(record).toEqual({
      id: agent.id,
      organizationId: organization.id,
      ownerUserId: userId,
      status: 'running',
      serverIp: '',
      serverTier: 'starter',
      serverRegion: 'us-east',
      aiModel: 'auto',
      planTier: 'starter',
      messagesLimit: '1000',
      messengerType: 'web',
      mode: InferenceMode.INFERENCE_MODE_MANAGED,
      createdAt: agent.created_at,
      updatedAt: agent.updated_at,
    });
  });

  it('picks the most recently created record, or the one named, of the user’s own', async () => {
    const { organization, userId, agent: older } = await ownerWithAgent();
    const newer = await seedAgent(database.db, organization.id, { owner_user_id: userId });
    expect(recordOf(await auth.client.getUserAgent({ userId, agentId: '' })).id).toBe(newer.id);
    expect(recordOf(await auth.client.getUserAgent({ userId, agentId: older.id })).id).toBe(older.id);
  });

  it('answers not_found for a user without a record, saying how one is made', async () => {
    const organization = await seedOrganization(database.db);
    const userId = await seedMember(database.db, organization.id, 'owner');
    await seedAgent(database.db, organization.id); // the organization's, but owned by nobody
    const failure = await failureOf(auth.client.getUserAgent({ userId, agentId: '' }));
    expect(failure.kind).toBe('not_found');
    expect(failure.message).toContain('create-agent');
  });

  it('answers not_found for another user’s record, exactly as for one that does not exist', async () => {
    const mine = await ownerWithAgent();
    const theirs = await ownerWithAgent();
    const foreign = await failureOf(auth.client.getUserAgent({ userId: mine.userId, agentId: theirs.agent.id }));
    const missing = await failureOf(auth.client.getUserAgent({ userId: mine.userId, agentId: '00000000-0000-4000-8000-000000000000' }));
    expect([foreign.kind, foreign.message]).toEqual(['not_found', 'Agent record not found.']);
    expect([missing.kind, missing.message]).toEqual([foreign.kind, foreign.message]);
  });

  it('answers not_found once the owner has left the organization', async () => {
    const { organization, userId } = await ownerWithAgent();
    await database.db.deleteFrom('memberships').where('organization_id', '=', organization.id).where('user_id', '=', userId).execute();
    expect((await failureOf(auth.client.getUserAgent({ userId, agentId: '' }))).kind).toBe('not_found');
  });

  it('rejects ids that are not UUIDs, naming the field', async () => {
    const failure = await failureOf(auth.client.getUserAgent({ userId: 'me', agentId: '' }));
    expect(failure.kind).toBe('validation');
    expect(failure.message).toContain('user_id');
  });
});

describe('UpdateAgentSettings', () => {
  it('changes the given settings and reports which columns changed', async () => {
    const { userId, agent } = await ownerWithAgent();
    const response = await auth.client.updateAgentSettings({
      userId,
      agentId: agent.id,
      aiModel: 'gpt-4.1',
      serverTier: 'starter', // already starter: not a change
      serverRegion: 'eu-north',
      messengerType: 'discord',
    });
    expect(response.changed).toEqual(['ai_model', 'messenger_type', 'server_region']);
    expect(recordOf(response)).toMatchObject({ aiModel: 'gpt-4.1', serverTier: 'starter', serverRegion: 'eu-north', messengerType: 'discord' });
    const row = await database.db.selectFrom('agent_instances').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
    expect([row.ai_model, row.server_region, row.messenger_type, row.mode]).toEqual(['gpt-4.1', 'eu-north', 'discord', 'managed']);
  });

  it('changes nothing when every value is already in place', async () => {
    const { userId, agent } = await ownerWithAgent();
    const response = await auth.client.updateAgentSettings({ userId, agentId: agent.id, aiModel: 'auto' });
    expect(response.changed).toEqual([]);
    expect(recordOf(response).updatedAt).toEqual(agent.updated_at);
  });

  it('switches to BYOK with the key encrypted at rest, bound to the record, and never returned or logged', async () => {
    const { userId, agent } = await ownerWithAgent();
    const providerKey = `sk-byok-${'k'.repeat(24)}-agent-records-test`;
    const response = await auth.client.updateAgentSettings({ userId, agentId: agent.id, providerKey });
    expect(response.changed).toEqual(['mode', 'provider_key']);
    expect(recordOf(response).mode).toBe(InferenceMode.INFERENCE_MODE_BYOK);
    expect(JSON.stringify(response)).not.toContain(providerKey);

    const row = await database.db.selectFrom('agent_instances').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow();
    expect(row.mode).toBe('byok');
    expect(row.provider_key_ciphertext).not.toContain(providerKey);
    const key = Buffer.from(SECRETS_KEY, 'hex');
    expect(decryptSecret(row.provider_key_ciphertext ?? '', key, agent.id)).toBe(providerKey);
    expect(() => decryptSecret(row.provider_key_ciphertext ?? '', key, userId)).toThrow();

    // A second key replaces the first; the record was already BYOK.
    const again = await auth.client.updateAgentSettings({ userId, agentId: agent.id, providerKey: `${providerKey}-2` });
    expect(again.changed).toEqual(['provider_key']);
    expect(auth.process.logs()).not.toContain(providerKey);
  });

  it('answers not_found for another user’s record and changes nothing', async () => {
    const mine = await ownerWithAgent();
    const theirs = await ownerWithAgent();
    const failure = await failureOf(auth.client.updateAgentSettings({ userId: mine.userId, agentId: theirs.agent.id, aiModel: 'gpt-4.1' }));
    expect(failure.kind).toBe('not_found');
    const row = await database.db.selectFrom('agent_instances').select('ai_model').where('id', '=', theirs.agent.id).executeTakeFirstOrThrow();
    expect(row.ai_model).toBe('auto');
  });

  it.each([
    [{ serverTier: 'huge' }, 'server_tier: must be one of starter, standard, performance, enterprise'],
    [{ serverRegion: 'mars' }, 'server_region: must be one of us-east, us-west, eu-central, eu-north, ap-south'],
    [{ messengerType: 'fax' }, 'messenger_type: must be one of web, telegram, discord, slack, whatsapp'],
    [{ aiModel: ' ' }, 'ai_model: must not be empty'],
    [{ providerKey: '' }, 'provider_key: must not be empty'],
  ])('rejects %j, naming the field and what it allows', async (change, message) => {
    const { userId, agent } = await ownerWithAgent();
    const failure = await failureOf(auth.client.updateAgentSettings({ userId, agentId: agent.id, ...change }));
    expect([failure.kind, failure.message]).toEqual(['validation', message]);
  });
});

describe('ListOrganizationAgents', () => {
  it('lists the organization’s records, newest first, with their owners’ emails, to any member', async () => {
    const { organization, owner, member } = await seedOrganizationWithRoles(database.db);
    const ownerEmail = (await database.db.selectFrom('users').select('email').where('id', '=', owner).executeTakeFirstOrThrow()).email;
    const older = await seedAgent(database.db, organization.id, { owner_user_id: owner });
    const newer = await seedAgent(database.db, organization.id, { mode: 'byok' });
    await seedAgent(database.db, (await seedOrganization(database.db)).id); // another organization's
    const { agents } = await auth.client.listOrganizationAgents({ actorUserId: member, organizationId: organization.id });
    expect(agents.map(({ agent, ownerEmail: email }) => ({ id: agent?.id, mode: agent?.mode, email }))).toEqual([
      { id: newer.id, mode: InferenceMode.INFERENCE_MODE_BYOK, email: '' },
      { id: older.id, mode: InferenceMode.INFERENCE_MODE_MANAGED, email: ownerEmail },
    ]);
  });

  it('answers a non-member not_found, exactly as for an organization that does not exist', async () => {
    const { organization } = await seedOrganizationWithRoles(database.db);
    const outsider = await seedMember(database.db, (await seedOrganization(database.db)).id, 'owner');
    const foreign = await failureOf(auth.client.listOrganizationAgents({ actorUserId: outsider, organizationId: organization.id }));
    const unknown = await failureOf(auth.client.listOrganizationAgents({ actorUserId: outsider, organizationId: '00000000-0000-4000-8000-000000000000' }));
    expect({ kind: foreign.kind, message: foreign.message }).toEqual({ kind: unknown.kind, message: unknown.message });
    expect(foreign.kind).toBe('not_found');
  });
});
