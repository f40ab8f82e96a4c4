import { decryptSecret } from '@gateway/lib/cipher';
import { expectError } from '../../services/edge/test/support/http';
import { agentApi, seedAgentUser, type AgentApi, type AgentUser } from './support/agent';
import { startE2e, type E2e } from './support/harness';

/**
 * The agent API through edge against the whole stack (real processes, real
 * Postgres and Redis): authentication, sessions, memory, skills, status,
 * token budget, automation and settings, and every validation rule of each.
 * Chat is in agent-chat.test.ts, the scheduler in agent-scheduler.test.ts.
 */
jest.setTimeout(60_000);

let e2e: E2e;
let owner: AgentUser;
let api: AgentApi;
let other: AgentUser;
let otherApi: AgentApi;

beforeAll(async () => {
  e2e = await startE2e('agent_api');
  [owner, other] = await Promise.all([seedAgentUser(e2e), seedAgentUser(e2e)]);
  api = agentApi(e2e.stack.baseUrl, owner);
  otherApi = agentApi(e2e.stack.baseUrl, other);
}, 180_000);

afterAll(async () => {
  await e2e?.close();
});

type Json = Record<string, unknown>;
const ROUTES: Array<[string, string]> = [
  ['GET', '/status'],
  ['POST', '/chat'],
  ['GET', '/sessions'],
  ['POST', '/sessions'],
  ['PATCH', '/sessions'],
  ['DELETE', '/sessions'],
  ['GET', '/skills'],
  ['POST', '/skills'],
  ['PUT', '/skills'],
  ['GET', '/memory'],
  ['POST', '/memory'],
  ['GET', '/token-budget'],
  ['POST', '/token-budget'],
  ['POST', '/chat-automate'],
  ['POST', '/update'],
];

async function request(method: string, path: string, init: { bearer?: string; cookie?: string }) {
  const response = await fetch(`${e2e.stack.baseUrl}/api/agent${path}`, {
    method,
    headers: {
      ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      ...(init.cookie ? { cookie: init.cookie } : {}),
      ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
    },
    ...(method === 'GET' ? {} : { body: '{}' }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as unknown };
}

describe('authentication', () => {
  it.each(ROUTES)('%s %s refuses an API key with a 401 that asks for a session', async (method, path) => {
    const response = await request(method, path, { bearer: owner.apiKey });
    const error = expectError(response, 401, 'auth');
    expect(error.message).toContain('signed-in session');
  });

  it.each(ROUTES)('%s %s refuses a call without credentials, and a legacy credential', async (method, path) => {
    expect(expectError(await request(method, path, {}), 401, 'auth').message).toContain('Sign in first');
    expect((await request(method, path, { bearer: e2e.stack.agentPlatformSecret })).status).toBe(401);
  });

  it('takes the session cookie and the bearer access token alike', async () => {
    const byCookie = await agentApi(e2e.stack.baseUrl, owner, 'cookie').get<Json>('/status');
    const byBearer = await api.get<Json>('/status');
    expect(byCookie.status).toBe(200);
    expect(byBearer.status).toBe(200);
    expect((byCookie.body.agent as Json).id).toBe(owner.agentId);
    expect((byBearer.body.agent as Json).id).toBe(owner.agentId);
  });

  it('answers 404 not_found to a signed-in user who owns no agent record', async () => {
    const without = await seedAgentUser(e2e, { agent: false });
    const error = expectError(await agentApi(e2e.stack.baseUrl, without).get('/sessions'), 404, 'not_found');
    expect(error.message).toContain('No agent record belongs to you');
  });

  it('picks among several records with X-Service-Agent-Id, and never another user’s', async () => {
    const [newest] = await e2e.auth.db
      .insertInto('agent_instances')
      .values({
        organization_id: owner.organizationId,
        owner_user_id: owner.userId,
        status: 'running',
        server_ip: null,
        server_tier: 'standard',
        server_region: 'eu-north',
        ai_model: 'auto',
        plan_tier: 'simulated',
        messages_limit: 100,
        messenger_type: 'web',
        mode: 'managed',
        provider_key_ciphertext: null,
        gateway_token_hash: null,
      })
      .returning('id')
      .execute();
    try {
      expect(((await api.get<Json>('/status')).body.agent as Json).id).toBe(newest?.id);
      expect(((await api.get<Json>('/status', { 'x-service-agent-id': owner.agentId })).body.agent as Json).id).toBe(owner.agentId);
      expectError(await api.get('/status', { 'x-service-agent-id': other.agentId }), 404, 'not_found');
      const malformed = expectError(await api.get('/status', { 'x-service-agent-id': 'mine' }), 400, 'validation');
      expect(malformed.message).toContain('X-Service-Agent-Id');
    } finally {
      await e2e.auth.db.deleteFrom('agent_instances').where('id', '=', newest?.id ?? '').execute();
    }
  });
});

describe('sessions', () => {
  it('creates, lists, updates and deletes a session, with its messages', async () => {
    const created = await api.post<{ session: Json }>('/sessions', { title: 'Quarterly plan', category: 'research' });
    expect(created.status).toBe(201);
    const session = created.body.session;
    expect(session).toMatchObject({ title: 'Quarterly plan', category: 'research', status: 'active', icon: null, pinned: false, message_count: 0 });
    const sessionId = session.sessionId as string;

    const listed = await api.get<{ sessions: Json[] }>('/sessions');
    expect(listed.body.sessions.map((entry) => entry.sessionId)).toContain(sessionId);
    expect((await otherApi.get<{ sessions: Json[] }>('/sessions')).body.sessions.map((entry) => entry.sessionId)).not.toContain(sessionId);

    const updated = await api.patch<{ session: Json }>('/sessions', { sessionId, status: 'paused', pinned: true, icon: '📈', title: 'Q3 plan', category: 'task' });
    expect(updated.status).toBe(200);
    expect(updated.body.session).toMatchObject({ sessionId, title: 'Q3 plan', category: 'task', status: 'paused', pinned: true, icon: '📈' });
    expect((await api.patch<{ session: Json }>('/sessions', { sessionId, icon: null })).body.session.icon).toBeNull();
    // Pinned sessions come first.
    expect((await api.get<{ sessions: Json[] }>('/sessions')).body.sessions[0]?.sessionId).toBe(sessionId);

    const chat = await api.post<Json>('/chat', { message: 'Hello, session.', session_id: sessionId });
    expect(chat.status).toBe(200);
    const deleted = await api.delete<Json>('/sessions', { sessionId });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true, sessionId, messages_deleted: 2 });
    const rows = await e2e.agent.db.selectFrom('messages').select('id').where('session_id', '=', sessionId).execute();
    expect(rows).toEqual([]);
    expectError(await api.delete('/sessions', { sessionId }), 404, 'not_found');
  });

  it('answers 404 for another user’s session, and changes nothing', async () => {
    const theirs = (await otherApi.post<{ session: Json }>('/sessions', { title: 'Private' })).body.session.sessionId as string;
    expectError(await api.patch('/sessions', { sessionId: theirs, title: 'Mine now' }), 404, 'not_found');
    expectError(await api.delete('/sessions', { sessionId: theirs }), 404, 'not_found');
    expectError(await api.post('/chat', { message: 'hi', session_id: theirs }), 404, 'not_found');
    const row = await e2e.agent.db.selectFrom('sessions').select('title').where('id', '=', theirs).executeTakeFirstOrThrow();
    expect(row.title).toBe('Private');
  });

  it.each([
    ['POST', { category: 'general' }, 'body field "title" is required'],
    ['POST', { title: '' }, 'title: must not be empty'],
    ['POST', { title: 'x'.repeat(101) }, 'title: must be at most 100 characters'],
    ['POST', { title: 'ok', category: 'fun' }, 'body field "category" must be one of: general, task, research, support, automation, creative, debug'],
    ['POST', { title: 'ok', colour: 'red' }, 'unknown field "colour"'],
    ['PATCH', { title: 'no id' }, 'body field "sessionId" is required'],
    ['PATCH', { session_id: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d', title: 'wrong name' }, 'unknown field "session_id"'],
    ['PATCH', { sessionId: 'not-a-uuid', title: 'x' }, 'body field "sessionId" must be a UUID'],
    ['PATCH', { sessionId: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d' }, 'must change at least one of: title, category, status, icon, pinned'],
    ['PATCH', { sessionId: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d', status: 'done' }, 'body field "status" must be one of: active, completed, paused, archived'],
    ['PATCH', { sessionId: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d', pinned: 'yes' }, 'body field "pinned" must be a boolean'],
    ['PATCH', { sessionId: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d', icon: 'i'.repeat(65) }, 'icon: must be at most 64 characters'],
    ['DELETE', {}, 'body field "sessionId" is required'],
  ] as const)('%s /sessions: %#, a 400 naming the field', async (method, body, message) => {
    const response = method === 'POST' ? await api.post('/sessions', body) : method === 'PATCH' ? await api.patch('/sessions', body) : await api.delete('/sessions', body);
    expect(expectError(response, 400, 'validation').message).toContain(message);
  });

  it('answers 404 for a session id that exists nowhere', async () => {
    expectError(await api.patch('/sessions', { sessionId: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d', pinned: true }), 404, 'not_found');
  });
});

describe('memory', () => {
  it('creates an entry, replaces its value by key, and lists only the user’s own', async () => {
    const first = await api.post<{ memory: Json; created: boolean }>('/memory', { key: 'editor', value: 'vim', category: 'preference' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ created: true, memory: { key: 'editor', value: 'vim', category: 'preference' } });
    const again = await api.post<{ memory: Json; created: boolean }>('/memory', { key: 'editor', value: 'helix', category: 'preference' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, memory: { id: first.body.memory.id, value: 'helix' } });
    const mine = (await api.get<{ memories: Json[] }>('/memory')).body.memories;
    expect(mine.filter((entry) => entry.key === 'editor')).toHaveLength(1);
    expect((await otherApi.get<{ memories: Json[] }>('/memory')).body.memories.map((entry) => entry.key)).not.toContain('editor');
  });

  it.each([
    [{ value: 'v', category: 'fact' }, 'body field "key" is required'],
    [{ key: 'k', value: 'v' }, 'body field "category" is required'],
    [{ key: 'k', value: 'v', category: 'gossip' }, 'body field "category" must be one of: fact, preference, contact, project, note'],
    [{ key: 'k'.repeat(101), value: 'v', category: 'fact' }, 'key: must be at most 100 characters'],
    [{ key: 'k', value: 'v'.repeat(2001), category: 'fact' }, 'value: must be at most 2000 characters'],
    [{ key: ' ', value: 'v', category: 'fact' }, 'key: must not be empty'],
    [{ key: 'k', value: 3, category: 'fact' }, 'body field "value" must be a string'],
  ])('POST /memory case %#: a 400 naming the field', async (body, message) => {
    expect(expectError(await api.post('/memory', body), 400, 'validation').message).toContain(message);
  });
});

describe('skills', () => {
  const discordToken = `MTA${'x'.repeat(21)}.Gh7k2q.${'s'.repeat(38)}`;
  const discordAppId = '112233445566778899';

  it('lists what it knows, enables and disables a skill', async () => {
    const initial = await api.get<{ skills: Json[]; available: Json[] }>('/skills');
    expect(initial.body.skills).toEqual([]);
    expect(initial.body.available.map((skill) => skill.name)).toEqual(['discord', 'telegram', 'slack']);
    expect(initial.body.available[0]).toMatchObject({
      enabled: false,
      configured: false,
      credentials: { discord_token: { set: false, last_four: null }, discord_app_id: { set: false, last_four: null } },
    });
    expect((await api.post<{ skill: Json }>('/skills', { skill: 'telegram', enabled: true })).body.skill).toMatchObject({ name: 'telegram', enabled: true });
    expect((await api.get<{ skills: Json[] }>('/skills')).body.skills.map((skill) => skill.name)).toEqual(['telegram']);
    await api.post('/skills', { skill: 'telegram', enabled: false });
    expect((await api.get<{ skills: Json[] }>('/skills')).body.skills).toEqual([]);
  });

  it('stores credentials encrypted, bound to the agent and skill, and shows only their last four characters', async () => {
    const response = await api.put<{ skill: Json }>('/skills', { skill: 'discord', config: { discord_token: discordToken, discord_app_id: discordAppId } });
    expect(response.status).toBe(200);
    expect(response.body.skill).toMatchObject({
      name: 'discord',
      configured: true,
      credentials: { discord_token: { set: true, last_four: discordToken.slice(-4) }, discord_app_id: { set: true, last_four: '8899' } },
    });
    expect(response.text).not.toContain(discordToken);
    expect(response.text).not.toContain(discordAppId);

    const row = await e2e.agent.db.selectFrom('skills').selectAll().where('agent_id', '=', owner.agentId).where('skill', '=', 'discord').executeTakeFirstOrThrow();
    expect(row.credentials_ciphertext).toMatch(/^v1\./);
    expect(row.credentials_ciphertext).not.toContain(discordToken);
    const key = Buffer.from(e2e.stack.skillCredentialsKey, 'hex');
    expect(JSON.parse(decryptSecret(row.credentials_ciphertext ?? '', key, `${owner.agentId}:discord`))).toEqual({
      discord_token: discordToken,
      discord_app_id: discordAppId,
    });
    expect(() => decryptSecret(row.credentials_ciphertext ?? '', key, `${other.agentId}:discord`)).toThrow();

    const listed = await api.get('/skills');
    const status = await api.get('/status?include=skills,logs');
    for (const text of [listed.text, status.text]) {
      expect(text).not.toContain(discordToken);
      expect(text).not.toContain(discordAppId);
    }
    const logged = await e2e.agent.db.selectFrom('logs').select('details').where('agent_id', '=', owner.agentId).execute();
    expect(JSON.stringify(logged)).not.toContain(discordToken);
    expect(e2e.credentialsInLogs([discordToken, discordAppId])).toEqual([]);
  });

  it.each([
    [{ skill: 'myspace', config: { token: 'x' } }, 'skill: unknown skill "myspace"; the skills are discord, telegram, slack'],
    [{ skill: 'discord', config: { discord_token: 'abc' } }, 'config: discord takes exactly discord_token, discord_app_id; missing discord_app_id'],
    [
      { skill: 'discord', config: { discord_token: 'abc', discord_app_id: '1', webhook: 'x' } },
      'config: discord takes exactly discord_token, discord_app_id; unexpected webhook',
    ],
    [{ skill: 'discord', config: { discord_token: '', discord_app_id: '1' } }, 'config.discord_token: must be 1 to 512 characters'],
    [{ skill: 'discord', config: { discord_token: 5, discord_app_id: '1' } }, 'body field "config.discord_token" must be a string'],
    [{ skill: 'discord' }, 'body field "config" is required'],
  ])('PUT /skills %j is a 400 listing what is expected', async (body, message) => {
    expect(expectError(await api.put('/skills', body), 400, 'validation').message).toContain(message);
  });

  it.each([
    [{ skill: 'myspace', enabled: true }, 'skill: unknown skill "myspace"; the skills are discord, telegram, slack'],
    [{ skill: 'discord', enabled: 'on' }, 'body field "enabled" must be a boolean'],
    [{ enabled: true }, 'body field "skill" is required'],
  ])('POST /skills %j is a 400', async (body, message) => {
    expect(expectError(await api.post('/skills', body), 400, 'validation').message).toContain(message);
  });
});

describe('status', () => {
  it('reports the agent record of docs/api.md#agent-api, with the period’s usage from the ledger and no invented machine', async () => {
    const response = await api.get<{ agent: Json; quota: Json }>('/status');
    expect(response.status).toBe(200);
    expect(response.body.agent).toEqual({
      id: owner.agentId,
      status: 'running',
      server_ip: null,
      server_tier: 'starter',
      server_region: 'us-east',
      ai_model: 'auto',
      plan_tier: 'simulated',
      messenger_type: 'web',
      mode: 'managed',
      // The simulated plan meters dollars: no message count exists to report.
      messages_used: null,
      messages_limit: null,
    });
    expect(response.body.quota).toMatchObject({ meter: 'spend', allowance_usd: '10.000000', resets_at: expect.stringMatching(/T00:00:00.000Z$/) });
    expect(Object.keys(response.body)).toEqual(['agent', 'quota']);
  });

  it('reports messages used and the limit on a plan that counts messages', async () => {
    const legacy = await seedAgentUser(e2e, { plan: 'e2e_legacy', agent: { plan: 'e2e_legacy', messagesLimit: 7 } });
    const legacyApi = agentApi(e2e.stack.baseUrl, legacy);
    expect((await legacyApi.post('/chat', { message: 'Count this one.' })).status).toBe(200);
    const status = await legacyApi.get<{ agent: Json; quota: Json }>('/status');
    expect(status.body.agent).toMatchObject({ messages_used: 1, messages_limit: 7, plan_tier: 'e2e_legacy' });
    expect(status.body.quota).toMatchObject({ meter: 'legacy', used: 1, limit: 7, remaining: 6 });
  });

  it('includes recent messages, enabled skills, the log and the real health of its dependencies on request', async () => {
    await api.post('/skills', { skill: 'slack', enabled: true });
    await api.post('/chat', { message: 'Something to show in the status.' });
    const response = await api.get<Json>('/status?include=messages,skills,logs,health');
    expect(response.status).toBe(200);
    const { messages, skills, logs, health } = response.body as { messages: Json[]; skills: Json[]; logs: Json[]; health: Json };
    expect(messages[0]).toMatchObject({ role: 'assistant' });
    expect(messages.some((message) => message.content === 'Something to show in the status.')).toBe(true);
    expect(skills.map((skill) => skill.name)).toContain('slack');
    expect(logs.map((entry) => entry.event)).toContain('skill_enabled');
    expect(health).toEqual({
      status: 'ok',
      dependencies: { auth: 'serving', ledger: 'serving', router: 'serving', pricing: 'serving', gateway: 'ready', database: 'up' },
    });
  });

  it('reports a dependency that is down as it is', async () => {
    await e2e.stack.services.pricing.stop();
    try {
      const response = await api.get<{ health: Json }>('/status?include=health');
      expect(response.status).toBe(200);
      expect(response.body.health).toMatchObject({ status: 'degraded', dependencies: { pricing: 'not_serving', auth: 'serving' } });
    } finally {
      await e2e.restart('pricing');
    }
  });

  it.each([
    ['include=messages,history', 'query parameter "include[1]" must be one of: messages, skills, logs, health'],
    ['include=SKILLS', 'must be one of: messages, skills, logs, health'],
    ['detail=full', 'unknown query parameter "detail"'],
  ])('?%s is a 400 naming the allowed values', async (query, message) => {
    expect(expectError(await api.get(`/status?${query}`), 400, 'validation').message).toContain(message);
  });
});

describe('token budget', () => {
  it('reports the period’s usage against the plan', async () => {
    const response = await api.get<{ agent: Json; quota: Json }>('/token-budget');
    expect(response.status).toBe(200);
    expect(response.body.agent).toMatchObject({ id: owner.agentId, plan_tier: 'simulated', mode: 'managed', ai_model: 'auto' });
    expect(response.body.quota).toMatchObject({ meter: 'spend', allowance_usd: '10.000000' });
    const { spent_usd, remaining_usd } = response.body.quota as { spent_usd: string; remaining_usd: string };
    expect(Number(spent_usd) + Number(remaining_usd)).toBeCloseTo(10, 6);
  });

  it.each([
    [{}, 'body field "message" is required'],
    [{ message: '  ' }, 'body field "message" must not be empty'],
    [{ message: 'x'.repeat(8001) }, 'message: must be at most 8000 characters'],
    [{ message: 'hi', model: 'gpt-4.1' }, 'unknown field "model"'],
  ])('POST /token-budget case %#: a 400', async (body, message) => {
    expect(expectError(await api.post('/token-budget', body), 400, 'validation').message).toContain(message);
  });
});

describe('chat-automate', () => {
  it('turns a repetition into a cron schedule and a one-off into a time, and lists them with their next run', async () => {
    const weekly = await api.post<{ workflow: Json }>('/chat-automate', { command: 'schedule', text: 'every weekday at 9am summarise my open sessions' });
    expect(weekly.status).toBe(201);
    expect(weekly.body.workflow).toMatchObject({
      command: 'schedule',
      kind: 'recurring',
      task: 'summarise my open sessions',
      cron: '0 9 * * 1-5',
      schedule: 'every weekday at 09:00 UTC',
      status: 'active',
      run_count: 0,
      next_run_at: expect.stringMatching(/T09:00:00.000Z$/),
    });
    const reminder = await api.post<{ workflow: Json }>('/chat-automate', { command: 'remind', text: 'remind me in 2 hours to call Sam' });
    expect(reminder.body.workflow).toMatchObject({ command: 'remind', kind: 'once', task: 'call Sam', cron: null });
    const inTwoHours = Date.parse(reminder.body.workflow.next_run_at as string) - Date.parse(reminder.body.workflow.created_at as string);
    expect(Math.round(inTwoHours / 60_000)).toBe(120);

    const status = await api.post<{ workflows: Json[] }>('/chat-automate', { command: 'status' });
    expect(status.status).toBe(200);
    expect(status.body.workflows.map((workflow) => workflow.id)).toEqual(expect.arrayContaining([weekly.body.workflow.id, reminder.body.workflow.id]));
    expect(status.body.workflows.every((workflow) => workflow.next_run_at !== null)).toBe(true);
    // Each workflow's runs land in a session of its own.
    const session = (await api.get<{ sessions: Json[] }>('/sessions')).body.sessions.find((entry) => entry.sessionId === weekly.body.workflow.session_id);
    expect(session).toMatchObject({ category: 'automation', title: 'summarise my open sessions' });
    expect((await otherApi.post<{ workflows: Json[] }>('/chat-automate', { command: 'status' })).body.workflows).toEqual([]);
  });

  it.each([
    [{ command: 'remind', text: 'call Sam' }, 'text: understood the task "call Sam" but not when it should run'],
    [{ command: 'schedule', text: 'every weekday summarise' }, 'needs a time of day for "every weekday"'],
    [{ command: 'schedule' }, 'body field "text" is required for every command but status'],
    [{ command: 'cron', text: 'x' }, 'body field "command" must be one of: automate, schedule, trigger, remind, status'],
    [{ text: 'every day at 9am' }, 'body field "command" is required'],
    [{ command: 'remind', text: 'x'.repeat(501) }, 'text: must be at most 500 characters'],
  ])('chat-automate case %#: a 400 saying what was understood and what is needed', async (body, message) => {
    expect(expectError(await api.post('/chat-automate', body), 400, 'validation').message).toContain(message);
  });
});

describe('update', () => {
  it('records settings from docs/api.md#agent-api, says what changed, logs the request, and invents no machine', async () => {
    const user = await seedAgentUser(e2e);
    const userApi = agentApi(e2e.stack.baseUrl, user);
    const response = await userApi.post<Json>('/update', { aiModel: 'sim-medium', serverTier: 'performance', serverRegion: 'eu-central', messengerType: 'slack' });
    expect(response.status).toBe(200);
    expect(response.body.agent).toMatchObject({ ai_model: 'sim-medium', server_tier: 'performance', server_region: 'eu-central', messenger_type: 'slack', server_ip: null });
    expect(response.body.changes).toEqual([
      { field: 'aiModel', from: 'auto', to: 'sim-medium' },
      { field: 'messengerType', from: 'web', to: 'slack' },
      { field: 'serverTier', from: 'starter', to: 'performance' },
      { field: 'serverRegion', from: 'us-east', to: 'eu-central' },
    ]);
    expect(response.body.note).toContain('nothing is rebuilt');
    const row = await e2e.auth.db.selectFrom('agent_instances').selectAll().where('id', '=', user.agentId).executeTakeFirstOrThrow();
    expect([row.ai_model, row.server_tier, row.server_region, row.messenger_type, row.server_ip, row.status]).toEqual(['sim-medium', 'performance', 'eu-central', 'slack', null, 'running']);
    const logs = await userApi.get<{ logs: Json[] }>('/status?include=logs');
    expect(logs.body.logs[0]).toMatchObject({ event: 'settings_update_requested', details: { requested: ['aiModel', 'messengerType', 'serverTier', 'serverRegion'] } });

    const unchanged = await userApi.post<Json>('/update', { aiModel: 'sim-medium' });
    expect(unchanged.body.changes).toEqual([]);
  });

  it.each([
    [{}, 'must set at least one of: aiModel, messengerType, serverTier, serverRegion, aiApiKey'],
    [{ aiModel: 'gpt-9' }, 'aiModel: "gpt-9" is not in the model catalog; use auto or one of gpt-4.1-nano'],
    [{ messengerType: 'fax' }, 'body field "messengerType" must be one of: web, telegram, discord, slack, whatsapp'],
    [{ serverTier: 'huge' }, 'body field "serverTier" must be one of: starter, standard, performance, enterprise'],
    [{ serverRegion: 'mars' }, 'body field "serverRegion" must be one of: us-east, us-west, eu-central, eu-north, ap-south'],
    [{ aiApiKey: '' }, 'body field "aiApiKey" must not be empty'],
    [{ aiApiKey: 'two words' }, 'aiApiKey: must be the key alone, without spaces'],
    [{ ai_model: 'auto' }, 'unknown field "ai_model"'],
  ])('%j is a 400 naming the field and the allowed values', async (body, message) => {
    expect(expectError(await api.post('/update', body), 400, 'validation').message).toContain(message);
  });
});
