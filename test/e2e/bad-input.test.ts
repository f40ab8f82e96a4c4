import './support/catalog';
import { randomBytes } from 'node:crypto';
import type OpenAI from 'openai';
import { expectApiError, expectHeaderSet, failure, type GatewayErrorBody } from './support/headers';
import { startE2e, type Caller, type E2e } from './support/harness';
import { postRaw, type RawResponse } from './support/http';
import { committedRecords } from './support/ledger';
import { simulatorStats } from './support/simulator';

/**
 * What the gateway refuses, and how: malformed bodies (400 `validation`
 * naming the field and what it allows), a body over the limit (413), a
 * missing or rejected credential (401 `auth`, one body whatever the reason)
 * and a credential without the `inference` scope (403 `permission`). Every
 * refusal carries the whole header set and the request id, and none reaches
 * the provider.
 */
jest.setTimeout(90_000);

const BODY_LIMIT_BYTES = 4096;

let e2e: E2e;
let caller: Caller;
let client: OpenAI;
let chatCountBefore: number;

beforeAll(async () => {
  e2e = await startE2e('e2e_bad_input', { serviceEnv: { edge: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) } } });
  caller = await e2e.seed({ plan: 'simulated' });
  client = e2e.client(caller.key);
  chatCountBefore = (await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions;
});

afterAll(() => e2e?.close());

const chatUrl = () => `${e2e.gatewayUrl}/chat/completions`;
const hello = [{ role: 'user' as const, content: 'Hello.' }];

/** A body the client's types forbid, sent anyway, as a caller's bug would. */
function sendUnchecked(body: Record<string, unknown>) {
  return failure(client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming));
}

describe('malformed bodies', () => {
  it('refuses a body that is not JSON', async () => {
    const response = await postRaw(chatUrl(), '{"model": "auto", "messages": [', {
      authorization: `Bearer ${caller.key}`,
      'content-type': 'application/json',
    });
    expect(response.status).toBe(400);
    const { error } = response.json as { error: GatewayErrorBody };
    expect(error).toEqual({ message: expect.stringMatching(/body is not valid JSON/), type: 'validation', code: 400, request_id: response.headers.get('x-service-request-id') });
    expectHeaderSet(response.headers);
  });

  it('answers the same refusals with the header set on the routes express serves, and an unknown route under the gateway too', async () => {
    const headers = { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' };
    // A trailing slash is the same route to express, but not the plain lane's exact path.
    for (const url of [`${e2e.gatewayUrl}/responses`, `${chatUrl()}/`]) {
      const response = await postRaw(url, '{"model": "auto", "input": [', headers);
      expect(response.status).toBe(400);
      expect((response.json as { error: GatewayErrorBody }).error).toMatchObject({ type: 'validation', message: expect.stringMatching(/body is not valid JSON/) });
      expectHeaderSet(response.headers);
    }
    const unknown = await postRaw(`${e2e.gatewayUrl}/embeddings`, JSON.stringify({ input: 'x' }), headers);
    expect(unknown.status).toBe(404);
    expectHeaderSet(unknown.headers);
  });

  it('refuses a body that is not sent as JSON', async () => {
    const response = await postRaw(chatUrl(), 'model=auto', { authorization: `Bearer ${caller.key}`, 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(400);
    expect((response.json as { error: GatewayErrorBody }).error).toMatchObject({ type: 'validation', message: expect.stringMatching(/application\/json/) });
    expectHeaderSet(response.headers);
  });

  it.each([
    ['a JSON array', [], /body/],
    ['a number for model', { model: 5, messages: hello }, /\bmodel\b/],
    ['an empty model', { model: '', messages: hello }, /\bmodel\b/],
    ['a string for messages', { model: 'auto', messages: 'Hello.' }, /\bmessages\b/],
    ['a number for a content', { model: 'auto', messages: [{ role: 'user', content: 5 }] }, /messages\.0\.content/],
    ['a string for max_tokens', { model: 'auto', messages: hello, max_tokens: 'ten' }, /\bmax_tokens\b/],
    ['a negative max_tokens', { model: 'auto', messages: hello, max_tokens: -1 }, /\bmax_tokens\b/],
    ['a string for stream', { model: 'auto', messages: hello, stream: 'yes' }, /\bstream\b/],
    ['an n of zero', { model: 'auto', messages: hello, n: 0 }, /\bn\b/],
    ['an object for tools', { model: 'auto', messages: hello, tools: { type: 'function' } }, /\btools\b/],
    // The router carries the bound as an int32.
    ['a max_tokens of 2^31', { model: 'auto', messages: hello, max_tokens: 2 ** 31 }, /\bmax_tokens\b.*at most 2147483647/],
    ['a max_completion_tokens of 2^31', { model: 'auto', messages: hello, max_completion_tokens: 2 ** 31 }, /\bmax_completion_tokens\b.*at most 2147483647/],
  ])('refuses %s, naming the field', async (_case, body, field) => {
    const { body: error } = expectApiError(await sendUnchecked(body as Record<string, unknown>), 400, 'validation');
    expect(error.message).toMatch(field);
  });

  it('refuses missing or empty messages', async () => {
    const missing = expectApiError(await sendUnchecked({ model: 'auto' }), 400, 'validation');
    expect(missing.body.message).toMatch(/messages/);
    const empty = expectApiError(await sendUnchecked({ model: 'auto', messages: [] }), 400, 'validation');
    expect(empty.body.message).toMatch(/messages.*at least one/);
  });

  it('refuses a missing model', async () => {
    const { body } = expectApiError(await sendUnchecked({ messages: hello }), 400, 'validation');
    expect(body.message).toMatch(/\bmodel\b/);
  });

  it('refuses an unknown role, listing the roles allowed', async () => {
    const { body } = expectApiError(await sendUnchecked({ model: 'auto', messages: [{ role: 'robot', content: 'beep' }] }), 400, 'validation');
    expect(body.message).toMatch(/messages\.0\.role/);
    for (const role of ['system', 'user', 'assistant', 'tool']) expect(body.message).toContain(role);
  });

  it('refuses an unknown model, listing the models allowed', async () => {
    const { body, headers } = expectApiError(await failure(client.chat.completions.create({ model: 'gpt-99-ultra', messages: hello })), 400, 'validation');
    expect(body.message).toMatch(/\bmodel\b/);
    expect(body.message).toContain('gpt-99-ultra');
    for (const allowed of ['auto', 'sim-small', 'sim-reasoning']) expect(body.message).toContain(allowed);
    expect(headers.get('x-service-principal')).toBe('api_key');
  });

  it('refuses a body that is not what its Content-Encoding says with 400, and an encoding it does not know with 415', async () => {
    const body = JSON.stringify({ model: 'auto', messages: hello });
    const headers = { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' };
    const notGzip = await postRaw(chatUrl(), body, { ...headers, 'content-encoding': 'gzip' });
    expect(notGzip.status).toBe(400);
    expect((notGzip.json as { error: GatewayErrorBody }).error).toMatchObject({ type: 'validation', message: expect.stringMatching(/Content-Encoding/) });
    expectHeaderSet(notGzip.headers);
    const unknown = await postRaw(chatUrl(), body, { ...headers, 'content-encoding': 'compress' });
    expect(unknown.status).toBe(415);
    expect((unknown.json as { error: GatewayErrorBody }).error).toMatchObject({ type: 'validation', message: expect.stringMatching(/gzip, deflate or br/) });
  });

  it('refuses JSON nested deeper than the limit, naming the field, before forwarding it', async () => {
    const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
    // The body is level 1, so the field holds 64 more levels.
    const { body } = expectApiError(await sendUnchecked({ model: 'auto', messages: hello, metadata: nested(64) }), 400, 'validation');
    expect(body.message).toMatch(/body field "metadata" nests JSON deeper than 64 levels/);
  });

  it('refuses a path id that is not valid percent-encoding, naming the path parameter', async () => {
    const response = await fetch(`${e2e.stack.baseUrl}/api/v1/orgs/%ff%fe/keys`);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: GatewayErrorBody };
    expect(error).toMatchObject({ type: 'validation', message: expect.stringMatching(/path parameter "org"/) });
  });

  it('refuses a body over the limit with 413', async () => {
    const error = await failure(client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'x'.repeat(BODY_LIMIT_BYTES) }] }));
    const { body } = expectApiError(error, 413, 'validation');
    expect(body.message).toContain(String(BODY_LIMIT_BYTES));
  });
});

describe('credentials', () => {
  /** The body of a 401, request id checked against the header and then set aside, so bodies can be compared. */
  function withoutRequestId(body: GatewayErrorBody, headers: Headers) {
    expect(body.request_id).toBe(headers.get('x-service-request-id'));
    const { request_id: requestId, ...rest } = body;
    return { rest, requestId };
  }

  async function rawRejection(sent: Promise<RawResponse>) {
    const response = await sent;
    expect(response.status).toBe(401);
    expectHeaderSet(response.headers);
    return withoutRequestId((response.json as { error: GatewayErrorBody }).error, response.headers);
  }

  async function clientRejection(call: Promise<unknown>) {
    const { body, headers } = expectApiError(await failure(call), 401, 'auth');
    return withoutRequestId(body, headers);
  }

  it('answers every missing or rejected credential with the same 401', async () => {
    const send = (headers: Record<string, string>) => postRaw(chatUrl(), JSON.stringify({ model: 'auto', messages: hello }), { 'content-type': 'application/json', ...headers });
    const wrongSecret = `${caller.key.slice(0, -1)}${caller.key.endsWith('0') ? '1' : '0'}`;
    const rejections = [
      await rawRejection(send({})),
      await rawRejection(send({ authorization: 'Bearer' })),
      await rawRejection(send({ authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` })),
      await clientRejection(e2e.client('not-a-key').chat.completions.create({ model: 'auto', messages: hello })),
      await clientRejection(e2e.client(`svc_test_${randomBytes(28).toString('hex')}`).chat.completions.create({ model: 'auto', messages: hello })),
      await clientRejection(e2e.client(wrongSecret).chat.completions.create({ model: 'auto', messages: hello })),
    ];
    expect(rejections[0]?.rest).toEqual({ message: expect.any(String), type: 'auth', code: 401 });
    for (const { rest } of rejections) expect(rest).toEqual(rejections[0]?.rest);
    expect(new Set(rejections.map(({ requestId }) => requestId)).size).toBe(rejections.length);
  });

  it('refuses a key without the inference scope with 403, on chat and on the catalog', async () => {
    const readOnly = e2e.client((await e2e.seed({ plan: 'simulated', scopes: ['usage:read'] })).key);
    const chat = expectApiError(await failure(readOnly.chat.completions.create({ model: 'auto', messages: hello })), 403, 'permission');
    expect(chat.body.message).toContain('inference');
    expect(chat.headers.get('x-service-principal')).toBe('api_key');
    const models = expectApiError(await failure(readOnly.models.list()), 403, 'permission');
    expect(models.body.message).toContain('inference');
  });

  it('refuses the catalog without a credential', async () => {
    const response = await fetch(`${e2e.gatewayUrl}/models`);
    expect(response.status).toBe(401);
    expectHeaderSet(response.headers);
  });
});

describe('after all of it', () => {
  it('sent nothing to the provider', async () => {
    expect((await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions).toBe(chatCountBefore);
  });

  it('logged no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key])).toEqual([]);
  });
});

describe('text that cannot be stored', () => {
  it.each([
    ['a NUL', 'auto\u0000'],
    ['a lone surrogate', 'auto\ud800'],
  ])('refuses a model name with %s naming model, and every other record of the batch lands in Postgres', async (_case, model) => {
    const sender = await e2e.seed({ plan: 'simulated' });
    const senderClient = e2e.client(sender.key);
    // Sent together, so the refused request's record is written in the same batch as the others.
    const answers = await Promise.allSettled([
      ...Array.from({ length: 4 }, (_, index) => senderClient.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: `Fact ${index}?` }] })),
      senderClient.chat.completions.create({ model, messages: hello }),
    ]);
    const refused = answers.at(-1);
    expect(refused?.status).toBe('rejected');
    const { body } = expectApiError(refused?.status === 'rejected' ? refused.reason : undefined, 400, 'validation');
    expect(body.message).toMatch(/\bmodel\b.*NUL characters or lone surrogates/);
    expect(answers.slice(0, -1).every(({ status }) => status === 'fulfilled')).toBe(true);

    const { traces } = await committedRecords(e2e.ledger.db, sender.organizationId, answers.length);
    expect(traces.filter((trace) => trace.http_status === 200)).toHaveLength(answers.length - 1);
    expect(traces.find((trace) => trace.http_status === 400)?.requested_model).toBeNull();
  });
});
