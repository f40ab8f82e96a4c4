import './support/catalog';
import { randomBytes } from 'node:crypto';
import { addMember, createAgent, createKey, createUser, issueAgentGatewayToken } from '@gateway/auth/admin';
import { formatUsd, parseUsd } from '@gateway/lib/money';
import type OpenAI from 'openai';
import { expectApiError, failure } from './support/headers';
import { testRedisUrl } from '../support/databases';
import { runToExit } from '../support/processes';
import { startE2e, type Caller, type E2e } from './support/harness';
import { committedRecords, committedTrace } from './support/ledger';
import { simulatorDirective } from './support/simulator';

/**
 * The usage query end to end: real gateway calls through the official
 * client, recorded by the ledger, read back through edge from the usage
 * process. What a client was told (x-service-cost-usd, status) must be what
 * the report adds up to; who may ask is decided as docs/api.md#usage says.
 */
jest.setTimeout(180_000);

let e2e: E2e;
beforeAll(async () => {
  e2e = await startE2e('e2e_usage');
});
afterAll(() => e2e?.close());

interface Figures {
  requests: number;
  errors: number;
  failures: Record<string, number>;
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  cost_usd: string;
  unpriced_requests: number;
}
interface Report extends Figures {
  range: string;
  group_by: string;
  from: string;
  to: string;
  truncated: boolean;
  totals: Figures;
  groups: Array<Figures & { key: string | null }>;
}
interface Answer<Body> {
  status: number;
  headers: Headers;
  body: Body;
}

type Credential = { bearer: string } | { cookie: string };

async function get<Body = Report>(path: string, credential?: Credential): Promise<Answer<Body>> {
  const headers: Record<string, string> = {};
  if (credential && 'bearer' in credential) headers.authorization = `Bearer ${credential.bearer}`;
  if (credential && 'cookie' in credential) headers.cookie = `service-access-token=${credential.cookie}`;
  const response = await fetch(`${e2e.stack.baseUrl}${path}`, { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
}

/** A member of the organization with a password, signed in: their access token. */
async function signedInMember(organizationId: string, role: 'owner' | 'admin' | 'member'): Promise<string> {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  await createUser(e2e.auth.db, { email, password });
  await addMember(e2e.auth.db, { org: organizationId, email, role });
  const response = await fetch(`${e2e.stack.baseUrl}/api/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

const say = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];

/** One call as its client saw it: the request id and x-service-cost-usd (undefined: unpriced). */
interface Outcome {
  requestId: string;
  cost: bigint | undefined;
}

async function succeed(client: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Outcome> {
  const { response } = await client.chat.completions.create(body).withResponse();
  const cost = response.headers.get('x-service-cost-usd');
  expect(response.headers.get('x-service-metered')).toBe('true');
  return { requestId: response.headers.get('x-service-request-id') ?? '', cost: cost ? parseUsd(cost) : undefined };
}

async function fail(client: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming, status: number, type: string): Promise<Outcome> {
  const { headers } = expectApiError(await failure(client.chat.completions.create(body)), status, type);
  const cost = headers.get('x-service-cost-usd');
  return { requestId: headers.get('x-service-request-id') ?? '', cost: cost ? parseUsd(cost) : undefined };
}

/** Exact nearest rank, computed here from the raw latencies the ledger stored. */
function nearestRank(latencies: number[], fraction: number): number | undefined {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.ceil(fraction * sorted.length) - 1];
}

const withoutTo = ({ to: _to, ...rest }: Report) => rest;

/**
 * `npm run admin -- delete-agent`, as an operator runs it: the record goes,
 * and every edge replica forgets the organization's verified credentials (a
 * bound key's principal names the record) before the command returns.
 */
async function deleteAgentWithTheAdminCommand(organizationId: string, agentId: string): Promise<void> {
  const env = { DATABASE_URL: e2e.databaseUrl, REDIS_URL: testRedisUrl(), PRINCIPAL_EVENTS_PREFIX: e2e.stack.principalEventsPrefix };
  const run = await runToExit('services/auth/src/admin/cli.ts', env, ['delete-agent', '--org', organizationId, '--agent', agentId]);
  expect({ code: run.code, output: run.output }).toEqual({ code: 0, output: expect.stringContaining('"deleted": true') });
}

describe('GET /api/v1/usage after real gateway traffic', () => {
  let caller: Caller;
  let outcomes: Outcome[];

  beforeAll(async () => {
    caller = await e2e.seed({ plan: 'simulated' });
    const client = e2e.client(caller.key);
    outcomes = [];
    for (const content of ['Name a fruit.', 'Name a river.', 'Name a colour.']) outcomes.push(await succeed(client, { model: 'auto', messages: say(content) }));
    outcomes.push(await succeed(client, { model: 'sim-large', messages: say('A haiku about usage.'), max_tokens: 20 }));
    // Streamed: the cost arrives in the final chunk.
    const { data, response } = await client.chat.completions.create({ model: 'auto', messages: say('Tell a short story.'), stream: true }).withResponse();
    let streamed: { cost_usd?: string } | undefined;
    for await (const chunk of data) streamed = (chunk as { x_service?: typeof streamed }).x_service ?? streamed;
    outcomes.push({ requestId: response.headers.get('x-service-request-id') ?? '', cost: streamed?.cost_usd ? parseUsd(streamed.cost_usd) : undefined });
    outcomes.push(await fail(client, { model: 'auto', messages: say(`Fail. ${simulatorDirective({ fail: 500 })}`) }, 502, 'provider'));
    outcomes.push(await fail(client, { model: 'no-such-model', messages: say('Hello.') }, 400, 'validation'));
    await committedRecords(e2e.ledger.db, caller.organizationId, outcomes.length);
  });

  it('adds up to what the clients were told: cost is the sum of x-service-cost-usd, unpriced the count of empty ones', async () => {
    const { status, headers, body } = await get('/api/v1/usage?range=7d&group_by=model', { bearer: caller.key });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-service-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const priced = outcomes.filter((outcome) => outcome.cost !== undefined);
    expect(priced.length).toBe(5);
    const { traces } = await committedRecords(e2e.ledger.db, caller.organizationId, outcomes.length);
    const latencies = traces.map((trace) => trace.latency_ms);
    expect(body.totals).toEqual({
      requests: 7,
      errors: 2,
      failures: { provider: 1, validation: 1 },
      latency_ms: { p50: nearestRank(latencies, 0.5), p95: nearestRank(latencies, 0.95), p99: nearestRank(latencies, 0.99) },
      cost_usd: formatUsd(priced.reduce((sum, outcome) => sum + (outcome.cost ?? 0n), 0n)),
      unpriced_requests: 2,
    });
    expect(body).toMatchObject({ range: '7d', group_by: 'model', truncated: false });
    // One group per served model, and the request no model served (an unknown model) under null.
    const servedModels = new Set(traces.map((trace) => trace.served_model));
    expect(new Set(body.groups.map((group) => group.key))).toEqual(servedModels);
    expect(body.groups.find((group) => group.key === null)).toMatchObject({ requests: 1, errors: 1, failures: { validation: 1 }, unpriced_requests: 1 });
    expect(body.groups.reduce((sum, group) => sum + group.requests, 0)).toBe(7);
    expect(body.groups.reduce((sum, group) => sum + parseUsd(group.cost_usd), 0n)).toBe(parseUsd(body.totals.cost_usd));
  });

  it('lists every UTC day of the window, each with the traffic that started on it', async () => {
    const { body } = await get('/api/v1/usage?range=14d&group_by=day', { bearer: caller.key });
    const { traces } = await committedRecords(e2e.ledger.db, caller.organizationId, outcomes.length);
    const perDay = new Map<string, number>();
    for (const trace of traces) {
      const day = trace.started_at.toISOString().slice(0, 10);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    expect(body.groups).toHaveLength(14);
    expect(body.groups.at(-1)?.key).toBe(body.to.slice(0, 10));
    expect(body.from).toBe(`${body.groups[0]?.key}T00:00:00.000Z`);
    for (const group of body.groups) {
      const requests = perDay.get(group.key ?? '') ?? 0;
      expect(group).toMatchObject(requests > 0 ? { requests } : { requests: 0, cost_usd: '0.000000', latency_ms: { p50: null, p95: null, p99: null } });
    }
  });

  it('takes 30 days by day when nothing is asked', async () => {
    const { body } = await get('/api/v1/usage', { bearer: caller.key });
    expect({ range: body.range, group_by: body.group_by, days: body.groups.length, requests: body.totals.requests }).toEqual({
      range: '30d',
      group_by: 'day',
      days: 30,
      requests: 7,
    });
  });

  it('answers a member on the Console route with the same body, by bearer or cookie', async () => {
    const token = await signedInMember(caller.organizationId, 'member');
    for (const query of ['range=7d&group_by=model', 'range=90d&group_by=key', 'range=30d&group_by=agent', 'range=14d&group_by=day']) {
      const byKey = await get(`/api/v1/usage?${query}`, { bearer: caller.key });
      const bySession = await get(`/api/v1/orgs/${caller.organizationId}/usage?${query}`, { bearer: token });
      const byCookie = await get(`/api/v1/orgs/${caller.organizationId}/usage?${query}`, { cookie: token });
      expect(bySession.status).toBe(200);
      // `to` is the moment each report was read; everything else is the same data.
      expect(withoutTo(bySession.body)).toEqual(withoutTo(byKey.body));
      expect(withoutTo(byCookie.body)).toEqual(withoutTo(byKey.body));
    }
  });

  it('answers a non-member with the 404 of the Console key routes, and shows nothing', async () => {
    const stranger = await e2e.seed({ plan: 'simulated' });
    const token = await signedInMember(stranger.organizationId, 'owner');
    const usage = await get<{ error: { message: string; type: string; code: number } }>(`/api/v1/orgs/${caller.organizationId}/usage`, { bearer: token });
    const keys = await get<{ error: { message: string; type: string; code: number } }>(`/api/v1/orgs/${caller.organizationId}/keys`, { bearer: token });
    expect(usage.status).toBe(404);
    expect({ ...usage.body.error, request_id: undefined }).toEqual({ ...keys.body.error, request_id: undefined });
    expect(usage.body.error.type).toBe('not_found');
  });

  it('refuses a rejected key with the gateway’s own 401 body', async () => {
    const bogus = `svc_test_${randomBytes(4).toString('hex')}${randomBytes(24).toString('hex')}`;
    const usage = await get<{ error: Record<string, unknown> }>('/api/v1/usage', { bearer: bogus });
    const gateway = expectApiError(await failure(e2e.client(bogus).chat.completions.create({ model: 'auto', messages: say('Hi.') })), 401, 'auth');
    expect(usage.status).toBe(401);
    expect({ ...usage.body.error, request_id: undefined }).toEqual({ ...gateway.body, request_id: undefined });
    expect((await get('/api/v1/usage')).status).toBe(401);
  });

  it('refuses a key without usage:read and a legacy credential with 403 permission', async () => {
    const narrow = await createKey(e2e.auth.db, 'test', { org: caller.organizationId, actorEmail: caller.ownerEmail, name: 'inference only', scopes: ['inference'] });
    const agent = await createAgent(e2e.auth.db, { org: caller.organizationId }, e2e.secretsKey);
    const { gatewayToken } = await issueAgentGatewayToken(e2e.auth.db, { agent: agent.id });
    for (const credential of [narrow.key, gatewayToken]) {
      const { status, body } = await get<{ error: { type: string; message: string } }>('/api/v1/usage?range=7d', { bearer: credential });
      expect({ status, type: body.error.type }).toEqual({ status: 403, type: 'permission' });
      expect(body.error.message).toContain('"usage:read"');
    }
  });

  it('rejects bad query values, naming the parameter and the allowed values', async () => {
    const cases = [
      ['range=5d', 'query parameter "range" must be one of: 7d, 14d, 30d, 90d'],
      ['group_by=user', 'query parameter "group_by" must be one of: day, model, key, agent'],
      ['range=7d&range=7d', 'query parameter "range" must be given once, as one of: 7d, 14d, 30d, 90d'],
      ['limit=10', 'unknown query parameter "limit" (allowed: range, group_by)'],
    ];
    for (const [query, message] of cases) {
      const { status, body } = await get<{ error: { type: string; message: string } }>(`/api/v1/usage?${query}`, { bearer: caller.key });
      expect({ query, status, type: body.error.type, message: body.error.message }).toEqual({ query, status: 400, type: 'validation', message: `Invalid request: ${message}.` });
    }
  });
});

describe('attribution that outlives its key or agent record', () => {
  it('keeps a revoked key’s traffic under group_by=key', async () => {
    const caller = await e2e.seed({ plan: 'simulated' });
    const spare = await createKey(e2e.auth.db, 'test', { org: caller.organizationId, actorEmail: caller.ownerEmail, name: 'to be revoked' });
    const spareClient = e2e.client(spare.key);
    const requests = [
      await succeed(spareClient, { model: 'auto', messages: say('First.') }),
      await succeed(spareClient, { model: 'auto', messages: say('Second.') }),
      await succeed(e2e.client(caller.key), { model: 'auto', messages: say('Third.') }),
    ];
    await Promise.all(requests.map((outcome) => committedTrace(e2e.ledger.db, outcome.requestId)));
    const admin = await signedInMember(caller.organizationId, 'admin');
    const revoked = await fetch(`${e2e.stack.baseUrl}/api/v1/orgs/${caller.organizationId}/keys/${spare.apiKey.id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(revoked.status).toBe(200);
    await fail(spareClient, { model: 'auto', messages: say('Refused.') }, 401, 'auth');

    const { body } = await get('/api/v1/usage?range=7d&group_by=key', { bearer: caller.key });
    expect(body.groups.map((group) => [group.key, group.requests])).toEqual([
      [spare.apiKey.id, 2],
      [caller.keyId, 1],
    ]);
    // A rejected credential names no organization: its request is in nobody's report.
    expect(body.totals.requests).toBe(3);
  });

  it('keeps a deleted agent record’s traffic under its id with group_by=agent', async () => {
    const caller = await e2e.seed({ plan: 'simulated' });
    const agent = await createAgent(e2e.auth.db, { org: caller.organizationId }, e2e.secretsKey);
    const bound = await createKey(e2e.auth.db, 'test', { org: caller.organizationId, actorEmail: caller.ownerEmail, name: 'bound', agent: agent.id });
    const client = e2e.client(bound.key);
    const before = [await succeed(client, { model: 'auto', messages: say('As the agent.') }), await succeed(client, { model: 'auto', messages: say('Again.') })];
    await deleteAgentWithTheAdminCommand(caller.organizationId, agent.id);
    // docs/api.md#api-keys: the key keeps working, now for the organization itself.
    const after = await succeed(client, { model: 'auto', messages: say('As the organization.') });
    const traces = await Promise.all([...before, after].map((outcome) => committedTrace(e2e.ledger.db, outcome.requestId)));
    expect(traces.map((trace) => trace.agent_id)).toEqual([agent.id, agent.id, null]);

    const { body } = await get('/api/v1/usage?range=7d&group_by=agent', { bearer: caller.key });
    expect(body.groups.map((group) => [group.key, group.requests])).toEqual([
      [agent.id, 2],
      [null, 1],
    ]);
  });

  it('never shows one organization another’s traffic', async () => {
    const [mine, theirs] = await Promise.all([e2e.seed({ plan: 'simulated' }), e2e.seed({ plan: 'simulated' })]);
    const mineOutcome = await succeed(e2e.client(mine.key), { model: 'auto', messages: say('Mine.') });
    const theirOutcomes = [
      await succeed(e2e.client(theirs.key), { model: 'sim-large', messages: say('Theirs.'), max_tokens: 10 }),
      await succeed(e2e.client(theirs.key), { model: 'sim-large', messages: say('Theirs again.'), max_tokens: 10 }),
    ];
    await Promise.all([mineOutcome, ...theirOutcomes].map((outcome) => committedTrace(e2e.ledger.db, outcome.requestId)));
    for (const groupBy of ['day', 'model', 'key', 'agent']) {
      const { body } = await get(`/api/v1/usage?range=90d&group_by=${groupBy}`, { bearer: mine.key });
      expect({ groupBy, requests: body.totals.requests, cost: body.totals.cost_usd }).toEqual({ groupBy, requests: 1, cost: formatUsd(mineOutcome.cost ?? 0n) });
      expect(body.groups.some((group) => group.key === theirs.keyId)).toBe(false);
    }
    const { body } = await get('/api/v1/usage?range=90d&group_by=key', { bearer: theirs.key });
    expect(body.groups.map((group) => [group.key, group.requests])).toEqual([[theirs.keyId, 2]]);
  });
});
