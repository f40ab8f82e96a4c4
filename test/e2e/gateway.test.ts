import './support/catalog';
import type OpenAI from 'openai';
import { expectHeaderSet, STREAM_TRAILER_HEADERS, usdHeader } from './support/headers';
import { startE2e, type Caller, type E2e } from './support/harness';
import { streamRaw } from './support/http';
import { eventually } from './support/eventually';
import { costOf } from './support/prices';
import { startUpstreamRecorder, type UpstreamRecorder } from './support/upstream-recorder';

/**
 * Chat completions through the official client, as a caller uses them:
 * JSON, streamed (chunks, the final `x_service` chunk and HTTP trailers),
 * tool calls, the standard fields passed through, and the model catalog.
 * Edge's upstream is a recording proxy in front of the simulator, so each
 * test can compare what the client sent with what the provider received.
 */
jest.setTimeout(90_000);

let e2e: E2e;
let recorder: UpstreamRecorder;
let caller: Caller;
let client: OpenAI;

beforeAll(async () => {
  recorder = await startUpstreamRecorder();
  e2e = await startE2e('e2e_gateway', { serviceEnv: { edge: { UPSTREAM_BASE_URL: recorder.baseUrl } } });
  recorder.forwardTo(e2e.stack.simulatorUrl);
  caller = await e2e.seed({ plan: 'simulated' });
  client = e2e.client(caller.key);
});

afterAll(async () => {
  await e2e?.close();
  await recorder?.close();
});

const hello: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Say hello in one line.' }];

describe('a JSON completion', () => {
  it('answers in the OpenAI shape and tells the truth in every header', async () => {
    const { data, response, request_id: requestId } = await client.chat.completions.create({ model: 'auto', messages: hello }).withResponse();
    const headers = response.headers;

    // The SDK reads the request id from x-request-id: it is the gateway's request id.
    expect(requestId).toBe(headers.get('x-service-request-id'));

    expect(data).toMatchObject({ object: 'chat.completion', model: 'sim-small', choices: [{ index: 0, message: { role: 'assistant' } }] });
    expect(data.choices[0]?.message.content).toEqual(expect.stringMatching(/\S/));
    expectHeaderSet(headers);
    expect(headers.get('x-service-dropped-params')).toBeNull();
    expect({
      model: headers.get('x-service-model'),
      tier: headers.get('x-service-tier'),
      routed: headers.get('x-service-routed'),
      mode: headers.get('x-service-mode'),
      principal: headers.get('x-service-principal'),
      priced: headers.get('x-service-priced'),
      metered: headers.get('x-service-metered'),
      meter: headers.get('x-service-quota-meter'),
      baselineModel: headers.get('x-service-baseline-model'),
      baselineReason: headers.get('x-service-baseline-reason'),
      savingsPct: headers.get('x-service-savings-pct'),
    }).toEqual({
      model: 'sim-small',
      tier: 'simple',
      routed: 'true',
      mode: 'managed',
      principal: 'api_key',
      priced: 'true',
      metered: 'true',
      meter: 'spend',
      // `auto` on the simulated plan is measured against its ceiling's model.
      baselineModel: 'sim-reasoning',
      baselineReason: 'plan_ceiling',
      savingsPct: '90',
    });

    // The cost is the catalog price of the tokens the provider reported, and the saving is against the baseline.
    const usage = data.usage;
    if (!usage) throw new Error('the completion carries no usage');
    const cost = usdHeader(headers, 'x-service-cost-usd');
    expect(cost).toBe(costOf('sim-small', usage));
    expect(usdHeader(headers, 'x-service-baseline-usd')).toBe(costOf('sim-reasoning', usage));
    expect(usdHeader(headers, 'x-service-savings-usd')).toBe(costOf('sim-reasoning', usage) - cost);
  });

  it('sends the provider the body the client sent, with the served model', async () => {
    const before = recorder.requests().length;
    await client.chat.completions.create({ model: 'auto', messages: hello }).withResponse();
    expect(recorder.requests()).toHaveLength(before + 1);
    expect(recorder.last()).toMatchObject({ path: '/v1/chat/completions', body: { model: 'sim-small', messages: hello } });
    expect(Object.keys(recorder.last().body).sort()).toEqual(['messages', 'model']);
  });

  it('passes the standard fields through unchanged, and the provider honours them', async () => {
    const request = {
      model: 'sim-medium',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Describe the sea in a few sentences.' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      presence_penalty: 0.1,
      frequency_penalty: 0.1,
      seed: 7,
      stop: ['zebra'],
      n: 2,
      max_tokens: 6,
      response_format: { type: 'text' },
      user: 'end-user-42',
    } satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;
    const { data, response } = await client.chat.completions.create(request).withResponse();

    expectHeaderSet(response.headers);
    expect(response.headers.get('x-service-routed')).toBe('false');
    expect(response.headers.get('x-service-dropped-params')).toBeNull();
    expect(recorder.last().body).toEqual(request);
    // n, max_tokens and seed reached the provider: two choices, each cut at 6 tokens, the text of seed 7.
    expect(data.choices).toHaveLength(2);
    expect(data.choices.map((choice) => choice.finish_reason)).toEqual(['length', 'length']);
    const direct = await fetch(`${e2e.stack.simulatorUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${e2e.stack.managedProviderKey}` },
      body: JSON.stringify(request),
    });
    const directBody = (await direct.json()) as OpenAI.ChatCompletion;
    expect(data.choices.map((choice) => choice.message.content)).toEqual(directBody.choices.map((choice) => choice.message.content));
  });
});

describe('a streamed completion', () => {
  const request = { model: 'auto', messages: [{ role: 'user', content: 'Tell me about rivers.' }] } satisfies OpenAI.ChatCompletionCreateParams;

  it('streams the same answer in chunks, with x_service on the finish_reason chunk and one id throughout', async () => {
    const json = await client.chat.completions.create(request);
    const { data: stream, response } = await client.chat.completions.create({ ...request, stream: true }).withResponse();
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    let text = '';
    for await (const chunk of stream) {
      chunks.push(chunk);
      // The loop strict clients write: every chunk has a first choice.
      const first = chunk.choices[0];
      if (!first) throw new Error('a chunk without choices reached a client that did not ask for usage');
      text += first.delta.content ?? '';
    }

    expect(text).toBe(json.choices[0]?.message.content);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const last = chunks.at(-1) as OpenAI.ChatCompletionChunk & { x_service?: Record<string, unknown> };
    const requestId = response.headers.get('x-service-request-id');
    expect(last.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.filter((chunk) => 'x_service' in chunk)).toEqual([last]);
    expect(last.x_service).toEqual({
      request_id: requestId,
      cost_usd: expect.stringMatching(/^\d+\.\d{6}$/),
      savings_usd: expect.stringMatching(/^-?\d+\.\d{6}$/),
      baseline_usd: expect.stringMatching(/^\d+\.\d{6}$/),
      baseline_model: 'sim-reasoning',
      baseline_reason: 'plan_ceiling',
      savings_pct: '90',
      priced: true,
      metered: true,
    });
    // The client did not ask for usage: no usage-only chunk reaches it, though the provider was asked for one.
    expect(chunks.filter((chunk) => chunk.usage)).toEqual([]);
    expect(recorder.last().body).toEqual({ ...request, model: 'sim-small', stream: true, stream_options: { include_usage: true } });

    // Headers known before the first byte are headers; cost, savings and metering are not (they come at the end).
    const headers = response.headers;
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(headers.get('x-request-id')).toBe(requestId);
    expect({ model: headers.get('x-service-model'), tier: headers.get('x-service-tier'), principal: headers.get('x-service-principal') }).toEqual({
      model: 'sim-small',
      tier: 'simple',
      principal: 'api_key',
    });
    expect(STREAM_TRAILER_HEADERS.filter((name) => headers.get(name) !== null)).toEqual([]);
  });

  it('releases the first choice of n=2 as the second starts, and puts x_service on the stream\'s last finish_reason chunk', async () => {
    const stream = await client.chat.completions.create({ ...request, n: 2, stream: true });
    const chunks: Array<OpenAI.ChatCompletionChunk & { x_service?: unknown }> = [];
    for await (const chunk of stream) chunks.push(chunk);
    const finishes = chunks.flatMap((chunk, position) => (chunk.choices[0]?.finish_reason ? [{ position, index: chunk.choices[0].index }] : []));
    expect(finishes).toEqual([
      { position: expect.any(Number), index: 0 },
      { position: chunks.length - 1, index: 1 },
    ]);
    // Choice 1's content comes after choice 0's finish, as the provider sent it.
    expect(chunks[(finishes[0]?.position ?? 0) + 1]?.choices[0]?.index).toBe(1);
    expect(chunks.filter((chunk) => chunk.x_service).map((chunk) => chunks.indexOf(chunk))).toEqual([chunks.length - 1]);
  });

  it('sends cost, savings and metering as HTTP trailers, priced from the usage the provider streamed', async () => {
    const streamed = await streamRaw(
      `${e2e.gatewayUrl}/chat/completions`,
      { ...request, stream: true, stream_options: { include_usage: true } },
      { authorization: `Bearer ${caller.key}` },
    );
    expect(streamed.status).toBe(200);
    expect(streamed.done).toBe(true);

    // Asked for usage, the client gets the usage chunk last, with the stream's id; the cost is that usage at catalog prices.
    const chunks = streamed.events as Array<OpenAI.ChatCompletionChunk & { x_service?: Record<string, unknown> }>;
    const usageChunk = chunks.at(-1);
    const usage = usageChunk?.usage;
    if (!usage) throw new Error('the usage chunk is not the last');
    expect(usageChunk.choices).toEqual([]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.filter((chunk) => chunk.x_service)).toEqual([usageChunk]);
    const { trailers, headers } = streamed;
    expect(usdHeader(trailers, 'x-service-cost-usd')).toBe(costOf('sim-small', usage));
    expect({ priced: trailers.get('x-service-priced'), metered: trailers.get('x-service-metered') }).toEqual({ priced: 'true', metered: 'true' });
    expect(trailers.get('x-service-savings-usd')).toMatch(/^-?\d+\.\d{6}$/);

    // The last chunk says what the trailers say.
    const outcome = chunks.at(-1)?.x_service;
    expect(outcome).toMatchObject({
      request_id: headers.get('x-service-request-id'),
      cost_usd: trailers.get('x-service-cost-usd'),
      savings_usd: trailers.get('x-service-savings-usd'),
      savings_pct: trailers.get('x-service-savings-pct'),
      baseline_model: trailers.get('x-service-baseline-model'),
      baseline_reason: trailers.get('x-service-baseline-reason'),
      baseline_usd: trailers.get('x-service-baseline-usd'),
    });
    expect(STREAM_TRAILER_HEADERS.filter((name) => headers.get(name) !== null)).toEqual([]);

    // Headers and trailers together are the whole header set.
    const whole = new Headers(headers);
    for (const [name, value] of trailers) whole.set(name, value);
    expectHeaderSet(whole);
  });
});

describe('tools', () => {
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'The weather in a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
          required: ['city', 'unit'],
        },
      },
    },
  ];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris? Use get_weather.' }];

  it('returns tool calls through the client, and takes the tool result back', async () => {
    const { data, response } = await client.chat.completions.create({ model: 'auto', messages, tools, tool_choice: 'auto' }).withResponse();
    expectHeaderSet(response.headers);
    expect(recorder.last().body).toMatchObject({ tools, tool_choice: 'auto' });

    const choice = data.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: expect.any(String), unit: 'celsius' });

    // The conversation goes on with the tool's result, as an agent loop does.
    const followUp = await client.chat.completions.create({
      model: 'auto',
      tools,
      messages: [...messages, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '{"temp":18}' }],
    });
    expect(followUp.choices[0]?.finish_reason).toBe('stop');
    expect(followUp.choices[0]?.message.content).toEqual(expect.stringMatching(/\S/));
  });

  it('streams tool calls in pieces that assemble into the same call', async () => {
    const json = await client.chat.completions.create({ model: 'auto', messages, tools });
    const stream = await client.chat.completions.create({ model: 'auto', messages, tools, stream: true });
    const pieces: string[] = [];
    let name = '';
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        pieces.push(delta.function?.arguments ?? '');
      }
    }
    const call = json.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect({ name, arguments: pieces.join('') }).toEqual({ name: call.function.name, arguments: call.function.arguments });
  });
});

describe('the model catalog', () => {
  it('lists every model in the OpenAI list shape with its tier and prices', async () => {
    const { data: page, response } = await client.models.list().withResponse();
    expectHeaderSet(response.headers);
    expect(response.headers.get('x-service-principal')).toBe('api_key');
    const models = page.data as Array<OpenAI.Model & { x_service?: Record<string, unknown> }>;
    expect(models.map((model) => model.id)).toEqual(expect.arrayContaining(['sim-small', 'sim-medium', 'sim-large', 'sim-reasoning']));
    expect(models.find((model) => model.id === 'sim-reasoning')).toEqual({
      id: 'sim-reasoning',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'simulator',
      x_service: expect.objectContaining({
        tier: 'reasoning',
        input_usd_per_million_tokens: '10.000000',
        output_usd_per_million_tokens: '40.000000',
        unsupported_params: expect.arrayContaining(['temperature', 'max_tokens']),
      }),
    });
  });
});

describe('logs', () => {
  it('carry the request id into the backends, with no trace exporter configured', async () => {
    // A rejected key is logged by auth (at info, with its internal reason): the line carries the edge's request id.
    const response = await fetch(`${e2e.gatewayUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer svc_test_${'0'.repeat(56)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', messages: hello }),
    });
    const requestId = response.headers.get('x-service-request-id') ?? '';
    expect(response.status).toBe(401);
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(requestId).not.toBe('0'.repeat(32));
    const authLines = () =>
      e2e.stack.services.auth
        .logs()
        .split('\n')
        .filter((line) => line.includes(requestId))
        .map((line) => JSON.parse(line) as { trace_id?: string; msg?: string; reason?: string });
    await eventually(async () => (authLines().length > 0 ? true : undefined), 'the auth log line of the rejected key');
    expect(authLines()).toEqual([expect.objectContaining({ trace_id: requestId, msg: 'rpc rejected', reason: expect.stringMatching(/^unknown_key /) })]);
    // Edge's request line, written when the response closes, is in the request's trace too.
    const requestLines = () =>
      e2e.stack.services.edge
        .logs()
        .split('\n')
        .filter((line) => line.includes(requestId) && line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as { trace_id?: string; request_id?: string; status?: number });
    await eventually(async () => (requestLines().length > 0 ? true : undefined), "edge's request line of the rejected key");
    expect(requestLines()).toEqual([expect.objectContaining({ trace_id: requestId, request_id: requestId, status: 401 })]);
  });

  it('hold no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key, e2e.stack.managedProviderKey])).toEqual([]);
  });
});
