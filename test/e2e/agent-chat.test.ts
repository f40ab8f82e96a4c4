import { call, expectError } from '../../services/edge/test/support/http';
import { eventually } from './support/eventually';
import { SAMPLE_IMAGES } from '../../services/agent/test/support/sample-images';
import { agentApi, seedAgentUser, type AgentApi, type AgentUser } from './support/agent';
import { committedTrace } from './support/ledger';
import { keyFingerprint, simulatorDirective, simulatorStats } from './support/simulator';
import { startE2e, type E2e } from './support/harness';

/**
 * POST /api/agent/chat against the whole stack: the agent answers through
 * the gateway as principal agent_secret (metered, priced, attributed to its
 * record), runs the tools the simulator calls, records each run, keeps
 * sessions apart, checks images before anything goes upstream, and follows
 * a switch to BYOK with the next call.
 */
jest.setTimeout(60_000);

type Json = Record<string, unknown>;
interface ChatBody {
  session_id: string;
  session: Json;
  reply: Json;
  tool_runs: Array<Json & { tool: { name: string; arguments: Json; result: Json; ok: boolean } }>;
  usage: { calls: number; request_ids: string[]; model: string; cost_usd: string | null };
}

interface UsageReport {
  groups?: Array<{ key: string | null; requests: number; errors: number; cost_usd: string }>;
}

let e2e: E2e;
let owner: AgentUser;
let api: AgentApi;

beforeAll(async () => {
  e2e = await startE2e('agent_chat');
  owner = await seedAgentUser(e2e);
  api = agentApi(e2e.stack.baseUrl, owner);
}, 180_000);

afterAll(async () => {
  await e2e?.close();
});

async function newSession(title: string): Promise<string> {
  return (await api.post<{ session: { sessionId: string } }>('/sessions', { title })).body.session.sessionId;
}

async function sessionMessages(sessionId: string) {
  return e2e.agent.db.selectFrom('messages').selectAll().where('session_id', '=', sessionId).orderBy('seq').execute();
}

describe('a chat', () => {
  it('answers through the gateway as agent_secret, metered, priced and attributed to the agent record', async () => {
    const response = await api.post<ChatBody>('/chat', { message: 'Hello agent, how are you today?' });
    expect(response.status).toBe(200);
    const { reply, usage, session } = response.body;
    expect(reply).toMatchObject({ role: 'assistant', content: expect.stringMatching(/\S/) });
    expect(session).toMatchObject({ is_default: true, message_count: 2 });
    expect(usage).toMatchObject({ calls: 1, model: 'sim-small', cost_usd: expect.stringMatching(/^\d+\.\d{6}$/) });
    expect(reply.request_id).toBe(usage.request_ids[0]);

    const trace = await committedTrace(e2e.ledger.db, usage.request_ids[0] ?? '');
    expect(trace).toMatchObject({
      principal: 'agent_secret',
      agent_id: owner.agentId,
      organization_id: owner.organizationId,
      api_key_id: null,
      client_label: 'agent-service',
      requested_model: 'auto',
      served_model: 'sim-small',
      http_status: 200,
      priced: true,
    });
    expect(Number(trace.cost_micros)).toBe(Math.round(Number(usage.cost_usd) * 1_000_000));

    // The organization's usage, grouped by agent, counts the call under the agent record with its cost.
    const written = await eventually(async () => {
      const report = await call<UsageReport>(e2e.stack.baseUrl, '/api/v1/usage?range=7d&group_by=agent', { bearer: owner.apiKey });
      const group = report.body.groups?.find(({ key }) => key === owner.agentId);
      return group && group.requests >= 1 ? { report, group } : undefined;
    }, 'the agent chat in the usage report');
    expect(written.report.status).toBe(200);
    expect(written.group).toMatchObject({ requests: 1, errors: 0, cost_usd: usage.cost_usd });
  });

  it('runs the tools the model calls, records every run in the session, and writes the memory', async () => {
    const sessionId = await newSession('Tools');
    const response = await api.post<ChatBody>('/chat', { message: 'Please keep this in mind with the remember tool.', session_id: sessionId });
    expect(response.status).toBe(200);
    const { tool_runs: runs, usage, reply } = response.body;
    expect(usage.calls).toBe(2);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run).toMatchObject({ role: 'tool', session_id: sessionId, request_id: usage.request_ids[0], tool: { name: 'remember', ok: true } });
    const key = run?.tool.arguments.key as string;
    expect(run?.tool.result).toMatchObject({ ok: true, key, created: true });

    const memory = await e2e.agent.db.selectFrom('memories').selectAll().where('agent_id', '=', owner.agentId).where('key', '=', key).executeTakeFirstOrThrow();
    expect(memory).toMatchObject({ value: run?.tool.arguments.value, category: run?.tool.arguments.category });
    expect((await api.get<{ memories: Json[] }>('/memory')).body.memories.map((entry) => entry.key)).toContain(key);

    const stored = await sessionMessages(sessionId);
    expect(stored.map((message) => [message.role, message.tool_name])).toEqual([
      ['user', null],
      ['tool', 'remember'],
      ['assistant', null],
    ]);
    expect(stored[2]?.id).toBe(reply.id);
    // Both gateway calls are the agent's traffic.
    for (const requestId of usage.request_ids) {
      expect(await committedTrace(e2e.ledger.db, requestId)).toMatchObject({ principal: 'agent_secret', agent_id: owner.agentId });
    }
  });

  it('records a tool run that fails as a failed run the model reads, and finishes the chat', async () => {
    const sessionId = await newSession('Two tools');
    const response = await api.post<ChatBody>('/chat', { message: 'Use recall, then create_automation for me.', session_id: sessionId });
    expect(response.status).toBe(200);
    const runs = Object.fromEntries(response.body.tool_runs.map((run) => [run.tool.name, run.tool]));
    expect(runs.recall).toMatchObject({ ok: true, result: { ok: true, entries: expect.any(Array) } });
    // The simulator's arguments say what to do but not when: the parser refuses, and says so.
    expect(runs.create_automation).toMatchObject({ ok: false, result: { ok: false, error: expect.stringContaining('not when it should run') } });
    const stored = await sessionMessages(sessionId);
    expect(stored.filter((message) => message.role === 'tool').map((message) => [message.tool_name, message.tool_ok])).toEqual([
      ['recall', true],
      ['create_automation', false],
    ]);
    expect(stored.at(-1)?.role).toBe('assistant');
  });

  it('keeps sessions apart: a session sends only its own history upstream', async () => {
    const message = 'What did I say before?';
    const inputTokens = async (sessionId: string) => {
      const { body } = await api.post<ChatBody>('/chat', { message, session_id: sessionId });
      return Number((await committedTrace(e2e.ledger.db, body.usage.request_ids[0] ?? '')).input_tokens);
    };
    const busy = await newSession('Busy');
    await api.post('/chat', { message: 'A long earlier turn about the quarterly migration plan and its many steps.', session_id: busy });
    const fresh = await inputTokens(await newSession('Fresh'));
    expect(await inputTokens(await newSession('Also fresh'))).toBe(fresh);
    expect(await inputTokens(busy)).toBeGreaterThan(fresh);
  });
});

describe('images', () => {
  it('sends a checked image upstream and keeps only its type, size and digest', async () => {
    const sessionId = await newSession('Images');
    const before = (await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions;
    const response = await api.post<ChatBody>('/chat', {
      message: 'What is in this picture?',
      session_id: sessionId,
      images: [`data:image/png;base64,${SAMPLE_IMAGES.png.toString('base64')}`, SAMPLE_IMAGES.gif.toString('base64')],
    });
    expect(response.status).toBe(200);
    expect((await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions).toBe(before + 1);
    const [user] = await sessionMessages(sessionId);
    expect(user?.images).toEqual([
      { media_type: 'image/png', bytes: SAMPLE_IMAGES.png.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { media_type: 'image/gif', bytes: SAMPLE_IMAGES.gif.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(JSON.stringify(user)).not.toContain(SAMPLE_IMAGES.png.toString('base64'));
  });

  const tooLarge = Buffer.concat([SAMPLE_IMAGES.png, Buffer.alloc(300 * 1024)]).toString('base64');
  it.each([
    ['a document', [Buffer.from('%PDF-1.7 not an image').toString('base64')], 'images[0]: is not an image of a supported type (image/png, image/jpeg, image/gif, image/webp)'],
    ['not base64', ['@@@'], 'images[0]: must be base64 image data'],
    ['a lying data URL', [`data:image/webp;base64,${SAMPLE_IMAGES.jpeg.toString('base64')}`], 'images[0]: is declared as image/webp but its data is image/jpeg'],
    ['too large', [tooLarge], `images[0]: is ${SAMPLE_IMAGES.png.length + 300 * 1024} bytes; the limit is 262144 bytes per image`],
    ['too many', [1, 2, 3].map(() => SAMPLE_IMAGES.png.toString('base64')), 'images: at most 2 image(s) per message; 3 were sent'],
    ['not strings', [42], 'body field "images[0]" must be a string'],
  ])('refuses %s before anything is stored or sent upstream', async (_case, images, message) => {
    const sessionId = await newSession('Refused images');
    const before = (await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions;
    const response = await api.post('/chat', { message: 'Look at this.', session_id: sessionId, images });
    expect(expectError(response, 400, 'validation').message).toContain(message);
    expect(await sessionMessages(sessionId)).toEqual([]);
    expect((await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions).toBe(before);
  });
});

describe('chat input', () => {
  it.each([
    [{}, 'body field "message" is required'],
    [{ message: '' }, 'body field "message" must not be empty'],
    [{ message: 'x'.repeat(8001) }, 'message: must be at most 8000 characters'],
    [{ message: 'hi', sessionId: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d' }, 'unknown field "sessionId"'],
    [{ message: 'hi', session_id: 'main' }, 'body field "session_id" must be a UUID'],
    [{ message: 'hi', images: 'abc' }, 'body field "images" must be an array'],
  ])('case %#: a 400 naming the field', async (body, message) => {
    expect(expectError(await api.post('/chat', body), 400, 'validation').message).toContain(message);
  });

  it('answers 404 for a session that does not exist', async () => {
    expectError(await api.post('/chat', { message: 'hi', session_id: '4f1c2b7a-9d3e-4a5b-8c6d-7e8f9a0b1c2d' }), 404, 'not_found');
  });

  it('passes a provider failure on as the gateway classed it, keeps the question, and logs the failure', async () => {
    const sessionId = await newSession('Failing provider');
    const response = await api.post('/chat', { message: `Anyone there? ${simulatorDirective({ fail: 500 })}`, session_id: sessionId });
    expectError(response, 502, 'provider');
    expect((await sessionMessages(sessionId)).map((message) => message.role)).toEqual(['user']);
    const logs = await api.get<{ logs: Json[] }>('/status?include=logs');
    expect(logs.body.logs[0]).toMatchObject({ event: 'chat_failed', details: { session_id: sessionId, error_type: 'provider' } });
  });
});

describe('token budget and the gateway agree', () => {
  it('recommends the model, tier and complexity the gateway then serves, and prices the request the chat sends', async () => {
    const message = 'Design a migration plan for the billing database; analyze the failure modes step by step.';
    const recommendation = await api.post<Json & { estimate: Json }>('/token-budget', { message });
    expect(recommendation.status).toBe(200);
    const sessionId = await newSession('Agreement');
    const chat = await api.post<ChatBody>('/chat', { message, session_id: sessionId });
    const trace = await committedTrace(e2e.ledger.db, chat.body.usage.request_ids[0] ?? '');
    expect({ model: trace.served_model, tier: trace.tier, complexity: trace.complexity }).toEqual({
      model: recommendation.body.model,
      tier: recommendation.body.tier,
      complexity: recommendation.body.complexity,
    });
    expect(Number(trace.input_tokens)).toBe(recommendation.body.estimate.input_tokens);
    expect(recommendation.body).toMatchObject({ requested_model: 'auto', routed: true, reason: 'auto', estimate: { output_tokens: 1024, priced: true } });
  });
});

describe('BYOK', () => {
  it('switches to the caller’s own provider key: the next chat goes upstream with it, and it is never shown or logged', async () => {
    const user = await seedAgentUser(e2e);
    const userApi = agentApi(e2e.stack.baseUrl, user);
    const providerKey = `sk-byok-${'q'.repeat(12)}${Date.now()}`;
    const update = await userApi.post<Json & { changes: Json[] }>('/update', { aiApiKey: providerKey });
    expect(update.status).toBe(200);
    expect(update.body.changes).toEqual([
      { field: 'mode', from: 'managed', to: 'byok' },
      { field: 'aiApiKey', from: 'not set', to: 'set' },
    ]);
    expect(update.text).not.toContain(providerKey);

    const chat = await userApi.post<ChatBody>('/chat', { message: 'Now on my own key.' });
    expect(chat.status).toBe(200);
    const stats = await simulatorStats(e2e.stack.simulatorUrl);
    expect(stats.recentKeyFingerprints.at(-1)).toBe(keyFingerprint(providerKey));
    expect(stats.recentKeyFingerprints.at(-1)).not.toBe(keyFingerprint(e2e.stack.managedProviderKey));
    expect(await committedTrace(e2e.ledger.db, chat.body.usage.request_ids[0] ?? '')).toMatchObject({ principal: 'agent_secret', agent_id: user.agentId });
    expect((await userApi.get<{ agent: Json }>('/status')).body.agent.mode).toBe('byok');

    const logs = await e2e.agent.db.selectFrom('logs').select('details').where('agent_id', '=', user.agentId).execute();
    expect(JSON.stringify(logs)).not.toContain(providerKey);
    expect(e2e.credentialsInLogs([providerKey, e2e.stack.agentPlatformSecret])).toEqual([]);
  });
});
