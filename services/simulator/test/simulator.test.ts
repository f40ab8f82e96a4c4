import { createHash } from 'node:crypto';
import Ajv from 'ajv';
import type { ServiceProcess } from '../../../test/support/processes';
import { findCredentials } from '../../../test/support/secrets-scan';
import { expectedPromptTokens, simulatorStats, sseData, START_TIMEOUT_MS, startSimulatorProcess, tokensIn } from './kit';

/** The simulator as a real process, spoken to over HTTP as a gateway would. */
let simulator: ServiceProcess;
let base: string;

beforeAll(async () => {
  simulator = await startSimulatorProcess();
  base = `http://${simulator.address}`;
}, START_TIMEOUT_MS);

afterAll(async () => {
  await simulator?.stop();
});

const KEY = 'sk-simulator-test-0123456789abcdef';

interface ChatBody {
  id: string;
  object: string;
  model: string;
  choices: Array<{
    index: number;
    message: { role: string; content: string | null; tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }> };
    finish_reason: string;
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function chat(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function chatJson(body: unknown, headers: Record<string, string> = {}): Promise<ChatBody> {
  const response = await chat(body, headers);
  expect(response.status).toBe(200);
  return (await response.json()) as ChatBody;
}

async function chatError(body: unknown, status: number, headers: Record<string, string> = {}): Promise<ErrorBody> {
  const response = await chat(body, headers);
  expect(response.status).toBe(status);
  return (await response.json()) as ErrorBody;
}

const question = (content: string) => [{ role: 'user', content }];

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        detailed: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['city', 'unit'],
    },
  },
};
const searchTool = {
  type: 'function',
  function: { name: 'search_docs', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
};

function expectValidWeatherArguments(json: string): void {
  const args = JSON.parse(json) as Record<string, unknown>;
  expect(typeof args.city).toBe('string');
  expect(['celsius', 'fahrenheit']).toContain(args.unit);
  expect(Number.isInteger(args.days)).toBe(true);
  expect(args.days).toBeGreaterThanOrEqual(1);
  expect(args.days).toBeLessThanOrEqual(7);
  expect(typeof args.detailed).toBe('boolean');
  expect(Array.isArray(args.tags) && args.tags.every((tag) => typeof tag === 'string')).toBe(true);
}

describe('non-streaming answers', () => {
  it('answers in the chat-completions format with honest token counts', async () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'How do connection pools help?' },
    ];
    const body = await chatJson({ model: 'sim-small', messages });
    expect(body.object).toBe('chat.completion');
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.model).toBe('sim-small');
    expect(body.choices).toHaveLength(1);
    const [choice] = body.choices;
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.finish_reason).toBe('stop');
    const content = choice?.message.content ?? '';
    expect(content.length).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBe(tokensIn(content));
    expect(body.usage.prompt_tokens).toBe(expectedPromptTokens(messages));
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('is deterministic in the model, the prompt and the seed', async () => {
    const ask = async (model: string, content: string, seed?: number) =>
      (await chatJson({ model, messages: question(content), ...(seed === undefined ? {} : { seed }) })).choices[0]?.message.content;
    const first = await ask('sim-small', 'Tell me about retries.');
    expect(await ask('sim-small', 'Tell me about retries.')).toBe(first);
    expect(await ask('sim-small', 'Tell me about batching and queues.')).not.toBe(first);
    expect(await ask('sim-large', 'Tell me about retries.')).not.toBe(first);
    const seeded = await ask('sim-small', 'Tell me about retries.', 7);
    expect(await ask('sim-small', 'Tell me about retries.', 7)).toBe(seeded);
    expect(seeded).not.toBe(first);
  });

  it('gives n choices and counts the completion tokens of all of them', async () => {
    const body = await chatJson({ model: 'sim-medium', messages: question('Give me options.'), n: 3 });
    expect(body.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    const total = body.choices.reduce((sum, choice) => sum + tokensIn(choice.message.content ?? ''), 0);
    expect(body.usage.completion_tokens).toBe(total);
  });

  it.each(['max_tokens', 'max_completion_tokens'])('stops at %s with finish_reason length', async (param) => {
    const body = await chatJson({ model: 'sim-small', messages: question('Explain caching in depth.'), [param]: 5 });
    const [choice] = body.choices;
    expect(choice?.finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(5);
    expect(body.usage.completion_tokens).toBe(tokensIn(choice?.message.content ?? ''));
  });

  it('cuts the answer before a stop sequence', async () => {
    const messages = question('Describe observability.');
    const full = (await chatJson({ model: 'sim-small', messages })).choices[0]?.message.content ?? '';
    const words = full.split(' ');
    const stopWord = ` ${words[3]}`;
    const body = await chatJson({ model: 'sim-small', messages, stop: [stopWord, 'never-in-the-text'] });
    expect(body.choices[0]?.message.content).toBe(full.slice(0, full.indexOf(stopWord)));
    expect(body.choices[0]?.finish_reason).toBe('stop');
  });
});

describe('streaming', () => {
  const messages = question('Stream me an answer about back pressure.');

  async function streamed(extra: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
    const response = await chat({ model: 'sim-medium', messages, stream: true, ...extra });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = sseData(await response.text());
    expect(data[data.length - 1]).toBe('[DONE]');
    return data.slice(0, -1).map((payload) => JSON.parse(payload) as Record<string, unknown>);
  }

  type Chunk = { choices: Array<{ delta: { content?: string; role?: string }; finish_reason: string | null }>; usage?: unknown; object: string };

  it('streams the same text in several chunks, with usage at the end when asked', async () => {
    const whole = await chatJson({ model: 'sim-medium', messages });
    const chunks = (await streamed({ stream_options: { include_usage: true } })) as unknown as Chunk[];
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? '')).join('');
    expect(text).toBe(whole.choices[0]?.message.content);
    const usageChunk = chunks[chunks.length - 1];
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toEqual(whole.usage);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks[chunks.length - 2]?.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends no usage chunk when not asked', async () => {
    const chunks = (await streamed({})) as unknown as Chunk[];
    expect(chunks.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk))).toBe(true);
  });
});

describe('response formats (structured outputs)', () => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      year: { type: 'integer', minimum: 1900, maximum: 2030 },
      genre: { enum: ['drama', 'comedy'] },
      sequel: { anyOf: [{ $ref: '#/$defs/Film' }, { type: 'null' }] },
    },
    required: ['title', 'year', 'genre', 'sequel'],
    additionalProperties: false,
    $defs: { Film: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false } },
  };
  const jsonSchema = { type: 'json_schema', json_schema: { name: 'film', strict: true, schema } };
  const ajv = new Ajv({ strict: false });

  it('answers json_schema with JSON valid under the schema, the same each time, and the same streamed', async () => {
    const messages = question('Name a film.');
    const first = await chatJson({ model: 'sim-small', messages, response_format: jsonSchema });
    const content = first.choices[0]?.message.content ?? '';
    const value: unknown = JSON.parse(content);
    expect(ajv.validate(schema, value)).toBe(true);
    expect((await chatJson({ model: 'sim-small', messages, response_format: jsonSchema })).choices[0]?.message.content).toBe(content);
    expect(first.usage.completion_tokens).toBe(tokensIn(content));

    const response = await chat({ model: 'sim-small', messages, response_format: jsonSchema, stream: true });
    const chunks = sseData(await response.text())
      .slice(0, -1)
      .map((data) => JSON.parse(data) as { choices: Array<{ delta: { content?: string } }> });
    const pieces = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').filter((piece) => piece !== '');
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe(content);
  });

  it('answers json_object with a JSON object', async () => {
    const body = await chatJson({ model: 'sim-small', messages: question('Reply in JSON.'), response_format: { type: 'json_object' } });
    expect(JSON.parse(body.choices[0]?.message.content ?? '')).toEqual({ answer: expect.stringMatching(/\S/) });
  });

  it('refuses a response format it does not know, naming the field', async () => {
    const { error } = await chatError({ model: 'sim-small', messages: question('hi'), response_format: { type: 'yaml' } }, 400);
    expect(error.param).toBe('response_format.type');
  });
});

describe('tool calls', () => {
  type ToolCallDelta = { index: number; id?: string; function: { name?: string; arguments?: string } };

  it('calls a tool when tool_choice is required, with arguments valid for its schema', async () => {
    const messages = question('What is it like outside?');
    const tools = [weatherTool, searchTool];
    const body = await chatJson({ model: 'sim-small', messages, tools, tool_choice: 'required' });
    const [choice] = body.choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const calls = choice?.message.tool_calls ?? [];
    expect(calls).toHaveLength(1);
    expect(calls[0]?.type).toBe('function');
    expect(calls[0]?.id).toMatch(/^call_/);
    expect(calls[0]?.function.name).toBe('get_weather');
    expectValidWeatherArguments(calls[0]?.function.arguments ?? '');
    const completion = calls.reduce((sum, call) => sum + tokensIn(call.function.name) + tokensIn(call.function.arguments), 0);
    expect(body.usage.completion_tokens).toBe(completion);
    expect(body.usage.prompt_tokens).toBe(expectedPromptTokens(messages, tools));
  });

  it('calls the function tool_choice names', async () => {
    const body = await chatJson({
      model: 'sim-small',
      messages: question('Anything.'),
      tools: [weatherTool, searchTool],
      tool_choice: { type: 'function', function: { name: 'search_docs' } },
    });
    const call = body.choices[0]?.message.tool_calls?.[0];
    expect(call?.function.name).toBe('search_docs');
    expect(typeof (JSON.parse(call?.function.arguments ?? '{}') as { query?: unknown }).query).toBe('string');
  });

  it('under auto, calls the functions the user names and otherwise answers in text', async () => {
    const tools = [weatherTool, searchTool];
    const named = await chatJson({ model: 'sim-small', messages: question('Use search_docs and get_weather please.'), tools });
    expect(named.choices[0]?.message.tool_calls?.map((call) => call.function.name)).toEqual(['get_weather', 'search_docs']);
    const single = await chatJson({
      model: 'sim-small',
      messages: question('Use search_docs and get_weather please.'),
      tools,
      parallel_tool_calls: false,
    });
    expect(single.choices[0]?.message.tool_calls).toHaveLength(1);
    const plain = await chatJson({ model: 'sim-small', messages: question('Just chat with me.'), tools });
    expect(plain.choices[0]?.message.tool_calls).toBeUndefined();
    expect(plain.choices[0]?.finish_reason).toBe('stop');
    const none = await chatJson({ model: 'sim-small', messages: question('Use get_weather.'), tools, tool_choice: 'none' });
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('answers a tool result in text', async () => {
    const messages = [
      { role: 'user', content: 'Use get_weather for Oslo.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": 4}' },
    ];
    const body = await chatJson({ model: 'sim-small', messages, tools: [weatherTool] });
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(typeof body.choices[0]?.message.content).toBe('string');
  });

  it('streams tool calls whose pieces add up to the same arguments', async () => {
    const request = { model: 'sim-small', messages: question('Weather?'), tools: [weatherTool], tool_choice: 'required' };
    const whole = await chatJson(request);
    const response = await chat({ ...request, stream: true });
    const chunks = sseData(await response.text())
      .slice(0, -1)
      .map((data) => JSON.parse(data) as { choices: Array<{ delta: { tool_calls?: ToolCallDelta[] }; finish_reason: string | null }> });
    const deltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(deltas[0]?.function.name).toBe('get_weather');
    expect(deltas[0]?.id).toMatch(/^call_/);
    const args = deltas.map((delta) => delta.function.arguments ?? '').join('');
    expect(args).toBe(whole.choices[0]?.message.tool_calls?.[0]?.function.arguments);
    expectValidWeatherArguments(args);
    expect(chunks[chunks.length - 1]?.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('bad requests, in the OpenAI error format', () => {
  it.each([
    ['a body that is not JSON', '{"model":', null],
    ['missing messages', { model: 'sim-small' }, 'messages'],
    ['empty messages', { model: 'sim-small', messages: [] }, 'messages'],
    ['a model that is not a string', { model: 42, messages: question('hi') }, 'model'],
    ['an unknown role', { model: 'sim-small', messages: [{ role: 'robot', content: 'hi' }] }, 'messages.0.role'],
    ['n out of range', { model: 'sim-small', messages: question('hi'), n: 0 }, 'n'],
    ['a tool_choice naming no offered tool', { model: 'sim-small', messages: question('hi'), tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'nope' } } }, 'tool_choice'],
  ])('refuses %s', async (_label, body, param) => {
    const { error } = await chatError(body, 400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe(param);
    expect(error.message.length).toBeGreaterThan(0);
  });

  it.each(['temperature', 'max_tokens', 'logit_bias'])('refuses %s where the catalog says the model does not support it', async (param) => {
    const { error } = await chatError({ model: 'sim-reasoning', messages: question('hi'), [param]: param === 'logit_bias' ? {} : 1 }, 400);
    expect(error).toMatchObject({ param, code: 'unsupported_parameter', type: 'invalid_request_error' });
  });

  it('accepts the same parameter on a model that supports it', async () => {
    await chatJson({ model: 'sim-small', messages: question('hi'), temperature: 0.3, max_tokens: 50 });
  });

  it('wants a bearer key', async () => {
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim-small', messages: question('hi') }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as ErrorBody).error.type).toBe('invalid_request_error');
  });
});

describe('failure injection', () => {
  it('answers the status a header asks for, in the OpenAI error format', async () => {
    const { error } = await chatError({ model: 'sim-small', messages: question('hi') }, 500, { 'x-simulator-fail': '500' });
    expect(error.type).toBe('server_error');
    await chatError({ model: 'sim-small', messages: question('hi') }, 503, { 'x-simulator-fail': '503' });
    await chatError({ model: 'sim-small', messages: question('hi') }, 401, { 'x-simulator-fail': '401' });
  });

  it('sends retry-after with a 429', async () => {
    const defaulted = await chat({ model: 'sim-small', messages: question('hi') }, { 'x-simulator-fail': '429' });
    expect(defaulted.status).toBe(429);
    expect(defaulted.headers.get('retry-after')).toBe('2');
    expect(((await defaulted.json()) as ErrorBody).error.code).toBe('rate_limit_exceeded');
    const chosen = await chat({ model: 'sim-small', messages: question('hi') }, { 'x-simulator-fail': '429', 'x-simulator-retry-after': '9' });
    expect(chosen.headers.get('retry-after')).toBe('9');
    await chosen.body?.cancel();
  });

  it('takes the same knobs from a directive in the last user message', async () => {
    const response = await chat({ model: 'sim-small', messages: question('hello [simulator fail=429 retry-after=4] there') });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('4');
    await response.body?.cancel();
    await chatError({ model: 'sim-small', messages: question('[simulator fail=502]') }, 502);
  });

  it('drops the connection on reset, and in the middle of an answer on midstream', async () => {
    await expect(chat({ model: 'sim-small', messages: question('hi') }, { 'x-simulator-fail': 'reset' })).rejects.toThrow();
    const streamed = await chat({ model: 'sim-small', messages: question('hi'), stream: true }, { 'x-simulator-fail': 'midstream' });
    expect(streamed.status).toBe(200);
    await expect(streamed.text()).rejects.toThrow();
    const whole = await chat({ model: 'sim-small', messages: question('hi') }, { 'x-simulator-fail': 'midstream' });
    await expect(whole.text()).rejects.toThrow();
  });

  it('never answers on timeout', async () => {
    const pending = fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'x-simulator-fail': 'timeout' },
      body: JSON.stringify({ model: 'sim-small', messages: question('hi') }),
      signal: AbortSignal.timeout(300),
    });
    await expect(pending).rejects.toThrow(/abort|timeout/i);
  });

  it('answers normally after an injected latency', async () => {
    const body = await chatJson({ model: 'sim-small', messages: question('hi') }, { 'x-simulator-latency-ms': '20' });
    expect(body.choices).toHaveLength(1);
  });

  it('refuses a knob value it does not know', async () => {
    const { error } = await chatError({ model: 'sim-small', messages: question('hi') }, 400, { 'x-simulator-fail': 'explode' });
    expect(error.param).toBe('x-simulator-fail');
  });
});

describe('models, health and stats', () => {
  it('lists the catalog models', async () => {
    const response = await fetch(`${base}/v1/models`);
    const body = (await response.json()) as { object: string; data: Array<{ id: string; object: string; owned_by: string }> };
    expect(body.object).toBe('list');
    expect(body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'sim-small', object: 'model', owned_by: 'simulator' })]));
  });

  it('reports health, and 404 on unknown paths', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const missing = await fetch(`${base}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error.code).toBe('unknown_url');
  });

  it('records key fingerprints and models, never the key', async () => {
    const key = 'sk-fingerprint-check-9f8e7d6c5b4a';
    const before = await simulatorStats(simulator);
    await chatJson({ model: 'sim-large', messages: question('hi') }, { authorization: `Bearer ${key}` });
    const after = await simulatorStats(simulator);
    expect(after.recentKeyFingerprints.at(-1)).toBe(createHash('sha256').update(key).digest('hex').slice(0, 8));
    expect(after.requests.byModel['sim-large']).toBe((before.requests.byModel['sim-large'] ?? 0) + 1);
    expect(after.requests.chatCompletions).toBe(before.requests.chatCompletions + 1);
    expect(JSON.stringify(after)).not.toContain(key);
    expect(simulator.logs()).not.toContain(key);
    expect(simulator.logs()).not.toContain(KEY);
    expect(findCredentials(simulator.logs())).toEqual([]);
  });
});

it('drains and exits 0 on SIGTERM', async () => {
  const own = await startSimulatorProcess();
  const response = await fetch(`http://${own.address}/healthz`);
  expect(response.status).toBe(200);
  expect(await own.stop()).toBe(0);
  expect(own.logs()).toContain('"msg":"drained"');
}, START_TIMEOUT_MS);
