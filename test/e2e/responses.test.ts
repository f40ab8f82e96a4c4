import './support/catalog';
import Ajv from 'ajv';
import OpenAI from 'openai';
import { expectApiError, expectHeaderSet, failure, STREAM_TRAILER_HEADERS, usdHeader } from './support/headers';
import { startE2e, type Caller, type E2e } from './support/harness';
import { streamRaw } from './support/http';
import { committedTrace } from './support/ledger';
import { costOf } from './support/prices';
import { startUpstreamRecorder, type UpstreamRecorder } from './support/upstream-recorder';

/**
 * The Responses API through the official client: a translation at the edges
 * of the chat-completions pipeline, so the provider sees a chat completion,
 * and the caller gets a Response (or its typed events) with the same
 * routing, price, metering and headers as the same conversation sent to
 * chat completions.
 */
jest.setTimeout(90_000);

let e2e: E2e;
let recorder: UpstreamRecorder;
let caller: Caller;
let client: OpenAI;

beforeAll(async () => {
  recorder = await startUpstreamRecorder();
  e2e = await startE2e('e2e_responses', { serviceEnv: { edge: { UPSTREAM_BASE_URL: recorder.baseUrl } } });
  recorder.forwardTo(e2e.stack.simulatorUrl);
  caller = await e2e.seed({ plan: 'simulated' });
  client = e2e.client(caller.key);
});

afterAll(async () => {
  await e2e?.close();
  await recorder?.close();
});

const instructions = 'You are terse.';
const question = 'Tell me about rivers.';

/** Headers that describe the call rather than this one response. */
function callHeaders(headers: Headers): Record<string, string | null> {
  const names = ['x-service-model', 'x-service-tier', 'x-service-complexity', 'x-service-routed', 'x-service-priced', 'x-service-metered', 'x-service-baseline-model', 'x-service-baseline-reason', 'x-service-savings-pct', 'x-service-principal', 'x-service-mode', 'x-service-quota-meter'];
  return Object.fromEntries(names.map((name) => [name, headers.get(name)]));
}

describe('a JSON response', () => {
  it('answers in the Response shape, and is routed, priced and metered as the same chat completion', async () => {
    const { data, response, request_id: requestId } = await client.responses.create({ model: 'auto', instructions, input: question, max_output_tokens: 200 }).withResponse();
    const upstream = recorder.last();
    expect(upstream).toMatchObject({
      path: '/v1/chat/completions',
      body: { model: 'sim-small', messages: [{ role: 'system', content: instructions }, { role: 'user', content: question }], max_completion_tokens: 200 },
    });

    expect(data).toMatchObject({ object: 'response', status: 'completed', model: 'sim-small', store: false, instructions, max_output_tokens: 200, error: null });
    expect(data.id).toBe(`resp_${requestId}`);
    expect(data.output).toEqual([
      { type: 'message', id: `msg_${requestId}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: expect.stringMatching(/\S/), annotations: [], logprobs: [] }] },
    ]);
    expect(data.output_text).toBe((data.output[0] as OpenAI.Responses.ResponseOutputMessage).content.map((part) => (part.type === 'output_text' ? part.text : '')).join(''));
    expectHeaderSet(response.headers);
    expect(response.headers.get('x-service-request-id')).toBe(requestId);

    // The same conversation sent to chat completions: the same answer, the same usage, the same call.
    const chat = await client.chat.completions
      .create({ model: 'auto', messages: [{ role: 'system', content: instructions }, { role: 'user', content: question }], max_completion_tokens: 200 })
      .withResponse();
    expect(data.output_text).toBe(chat.data.choices[0]?.message.content);
    const usage = chat.data.usage;
    if (!usage || !data.usage) throw new Error('usage is missing');
    expect(data.usage).toEqual({
      input_tokens: usage.prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.total_tokens,
    });
    expect(callHeaders(response.headers)).toEqual(callHeaders(chat.response.headers));
    expect(usdHeader(response.headers, 'x-service-cost-usd')).toBe(costOf('sim-small', usage));
    expect(usdHeader(response.headers, 'x-service-cost-usd')).toBe(usdHeader(chat.response.headers, 'x-service-cost-usd'));
    // The Response carries the outcome too, as the streamed one does.
    expect((data as unknown as { x_service: Record<string, unknown> }).x_service).toMatchObject({
      request_id: requestId,
      cost_usd: response.headers.get('x-service-cost-usd'),
      metered: true,
    });

    // One trace, like any call, with the tokens the provider reported.
    expect(await committedTrace(e2e.ledger.db, requestId ?? '')).toMatchObject({
      http_status: 200,
      served_model: 'sim-small',
      input_tokens: String(usage.prompt_tokens),
      output_tokens: String(usage.completion_tokens),
      stream: false,
    });
  });

  it('says incomplete when the answer is cut at max_output_tokens', async () => {
    const data = await client.responses.create({ model: 'sim-small', input: question, max_output_tokens: 3 });
    expect(data).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 3 } });
    expect(data.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
  });
});

describe('a streamed response', () => {
  it('sends the typed events in order with sequence numbers, and the cost in response.completed and the trailers', async () => {
    const streamed = await streamRaw(`${e2e.gatewayUrl}/responses`, { model: 'auto', input: question, stream: true }, { authorization: `Bearer ${caller.key}` });
    expect(streamed.status).toBe(200);
    const events = streamed.events as Array<OpenAI.Responses.ResponseStreamEvent & { response?: { x_service?: Record<string, unknown> } }>;
    const types = events.map((event) => event.type);
    expect(streamed.names).toEqual(types);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = types.filter((type) => type === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    // Responses streams end with response.completed; there is no [DONE].
    expect(streamed.done).toBe(false);

    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent & { response: { x_service: Record<string, unknown> } };
    const text = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    const done = events.find((event) => event.type === 'response.output_text.done') as OpenAI.Responses.ResponseTextDoneEvent;
    expect(done.text).toBe(text);
    expect(completed.response.output).toEqual([expect.objectContaining({ type: 'message', status: 'completed', content: [expect.objectContaining({ text })] })]);
    const usage = completed.response.usage;
    if (!usage) throw new Error('response.completed carries no usage');

    const { trailers, headers } = streamed;
    const requestId = headers.get('x-service-request-id');
    expect(headers.get('x-request-id')).toBe(requestId);
    expect(STREAM_TRAILER_HEADERS.filter((name) => headers.get(name) !== null)).toEqual([]);
    expect(usdHeader(trailers, 'x-service-cost-usd')).toBe(costOf('sim-small', { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens }));
    expect(completed.response.x_service).toEqual({
      request_id: requestId,
      cost_usd: trailers.get('x-service-cost-usd'),
      savings_usd: trailers.get('x-service-savings-usd'),
      baseline_usd: trailers.get('x-service-baseline-usd'),
      baseline_model: trailers.get('x-service-baseline-model'),
      baseline_reason: trailers.get('x-service-baseline-reason'),
      savings_pct: trailers.get('x-service-savings-pct'),
      priced: true,
      metered: true,
    });
    const whole = new Headers(headers);
    for (const [name, value] of trailers) whole.set(name, value);
    expectHeaderSet(whole);
    expect(await committedTrace(e2e.ledger.db, requestId ?? '')).toMatchObject({ http_status: 200, stream: true, output_tokens: String(usage.output_tokens) });
  });

  it('reads as a stream in the official client, whose final response has the usage', async () => {
    const stream = client.responses.stream({ model: 'auto', input: question });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(text);
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  });
});

describe('tools', () => {
  const tools: OpenAI.Responses.FunctionTool[] = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'The weather in a city.',
      strict: true,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    },
  ];

  it('returns function calls, and takes their output back in a stateless round trip', async () => {
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'What is the weather in Paris? Use get_weather.' }];
    const first = await client.responses.create({ model: 'auto', input, tools, tool_choice: 'required' });
    expect(recorder.last().body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', strict: true, parameters: tools[0]?.parameters } }],
      tool_choice: 'required',
    });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    if (!call) throw new Error('no function call');
    expect(call).toMatchObject({ name: 'get_weather', call_id: expect.stringMatching(/^call_/), status: 'completed' });
    expect(JSON.parse(call.arguments)).toEqual({ city: expect.any(String) });

    const second = await client.responses.create({ model: 'auto', tools, input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: '{"temp":18}' }] });
    expect(recorder.last().body).toMatchObject({
      messages: [
        { role: 'user' },
        { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: call.arguments } }] },
        { role: 'tool', tool_call_id: call.call_id, content: '{"temp":18}' },
      ],
    });
    expect(second.status).toBe('completed');
    expect(second.output_text).toMatch(/\S/);
  });

  it('streams a function call as output_item.added, argument deltas and done', async () => {
    const streamed = await streamRaw(
      `${e2e.gatewayUrl}/responses`,
      { model: 'auto', input: 'Weather in Oslo? Use get_weather.', tools, tool_choice: { type: 'function', name: 'get_weather' }, stream: true },
      { authorization: `Bearer ${caller.key}` },
    );
    const events = streamed.events as OpenAI.Responses.ResponseStreamEvent[];
    const added = events.find((event) => event.type === 'response.output_item.added') as OpenAI.Responses.ResponseOutputItemAddedEvent;
    expect(added.item).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '', status: 'in_progress' });
    const pieces = events.flatMap((event) => (event.type === 'response.function_call_arguments.delta' ? [event.delta] : []));
    const done = events.find((event) => event.type === 'response.function_call_arguments.done') as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
    expect(pieces.length).toBeGreaterThan(1);
    expect(done).toMatchObject({ name: 'get_weather', arguments: pieces.join('') });
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { output: [{ type: 'function_call', arguments: pieces.join(''), status: 'completed' }] } });
  });
});

describe('structured output', () => {
  it('answers text.format json_schema with JSON valid under the schema', async () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, founded: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name', 'founded', 'tags'],
      additionalProperties: false,
    };
    const data = await client.responses.create({ model: 'auto', input: 'Describe a city.', text: { format: { type: 'json_schema', name: 'city', schema, strict: true } } });
    expect(recorder.last().body).toMatchObject({ response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } } });
    expect(new Ajv().validate(schema, JSON.parse(data.output_text))).toBe(true);
    expect(data.text?.format).toEqual({ type: 'json_schema', name: 'city', schema, strict: true });
  });
});

describe('what the gateway does not serve', () => {
  it.each([
    ['previous_response_id', { previous_response_id: 'resp_123' }, 'previous_response_id', /stateless|keeps no responses/],
    ['store: true', { store: true }, 'store', /stored responses are not supported/],
    ['a conversation', { conversation: 'conv_1' }, 'conversation', /keeps no responses/],
    ['background', { background: true }, 'background', /background responses are not supported/],
    ['a built-in tool', { tools: [{ type: 'web_search' }] }, 'tools[0].type', /only function tools/],
    ['an item reference', { input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_1' }] }, 'input[1]', /item_reference is not supported/],
    ['an unknown field', { frobnicate: 1 }, 'frobnicate', /unknown field "frobnicate"/],
    ['an input item of another type', { input: [{ type: 'reasoning', id: 'rs_1', summary: [] }] }, 'input[0]', /input item of type message, function_call, function_call_output/],
  ])('refuses %s with 400 validation naming the field', async (_label, extra, field, message) => {
    const body = { model: 'auto', input: 'Hello.', ...extra } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    const { body: error, headers } = expectApiError(await failure(client.responses.create(body)), 400, 'validation');
    expect(error.message).toContain(`"${field}`);
    expect(error.message).toMatch(message);
    expectHeaderSet(headers);
  });

  it('refuses an unknown model as chat completions does, listing the models', async () => {
    const { body } = expectApiError(await failure(client.responses.create({ model: 'gpt-99-ultra', input: 'Hello.' })), 400, 'validation');
    expect(body.message).toContain('gpt-99-ultra');
    expect(body.message).toContain('sim-small');
  });

  it('logged no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key, e2e.stack.managedProviderKey])).toEqual([]);
  });
});
