import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { loadCatalog } from '@gateway/lib/catalog';
import { DomainError, type ErrorKind } from '@gateway/lib/errors';
import type { ServiceProcess } from '../../../test/support/processes';
import { expectedPromptTokens, simulatorStats, START_TIMEOUT_MS, startSimulatorProcess, tokensIn } from '../../simulator/test/kit';
import { createProviderClient, type ProviderClient, type ProviderRequest, type StreamEvent } from '../src/provider';

/** The provider adapter against a real simulator process. */
const catalog = loadCatalog();
const MANAGED_KEY = 'sk-managed-5f4e3d2c1b0a99887766554433221100';
const BYOK_KEY = 'sk-byok-caller-00112233445566778899aabbccddeeff';

let simulator: ServiceProcess;
let slowStreams: ServiceProcess;
const clients: ProviderClient[] = [];

function client(baseUrl: string, timeouts: { requestMs?: number; streamIdleMs?: number } = {}, variable = 'UPSTREAM_BASE_URL'): ProviderClient {
  const created = createProviderClient({ providers: catalog.providers, env: { [variable]: baseUrl }, timeouts });
  clients.push(created);
  return created;
}

let provider: ProviderClient;

beforeAll(async () => {
  // debug logs a line per request: the key must not be in it either. One at a
  // time, so a failed start leaves nothing unstopped.
  simulator = await startSimulatorProcess({ LOG_LEVEL: 'debug' });
  slowStreams = await startSimulatorProcess({ STREAM_CHUNK_DELAY_MS: '1500', LOG_LEVEL: 'debug' });
  provider = client(`http://${simulator.address}/v1`, { requestMs: 5000 });
}, 2 * START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(clients.map((created) => created.close()));
  await Promise.all([simulator?.stop(), slowStreams?.stop()]);
});

const messages = (content: string) => [{ role: 'user', content }];

function request(body: Record<string, unknown>, extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { provider: 'simulator', apiKey: MANAGED_KEY, body: { model: 'sim-small', ...body }, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

type Chunk = { choices: Array<{ delta: { content?: string; tool_calls?: Array<{ function: { arguments?: string } }> } }> };

function streamedText(events: StreamEvent[]): string {
  return events
    .filter((event) => !event.done)
    .flatMap((event) => (JSON.parse(event.data) as Chunk).choices.map((choice) => choice.delta.content ?? ''))
    .join('');
}

describe('non-streaming', () => {
  it('returns the body and the usage, which matches the tokenizer', async () => {
    const asked = messages('Why keep connections alive?');
    const result = await provider.complete(request({ messages: asked }));
    expect(result.status).toBe(200);
    const content = (result.json as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content ?? '';
    expect(result.usage).toEqual({
      promptTokens: expectedPromptTokens(asked),
      completionTokens: tokensIn(content),
      totalTokens: expectedPromptTokens(asked) + tokensIn(content),
    });
  });

  it('asks for JSON even when the body says stream', async () => {
    const result = await provider.complete(request({ messages: messages('hi'), stream: true, stream_options: { include_usage: true } }));
    expect(result.json.object).toBe('chat.completion');
  });

  it('passes tool calls through', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } } }];
    const result = await provider.complete(request({ messages: messages('hi'), tools, tool_choice: 'required' }));
    const choice = (result.json as { choices: Array<{ finish_reason: string; message: { tool_calls: Array<{ function: { arguments: string } }> } }> }).choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(Number.isInteger((JSON.parse(choice?.message.tool_calls[0]?.function.arguments ?? '{}') as { id: unknown }).id)).toBe(true);
  });
});

describe('streaming', () => {
  const asked = messages('Stream an answer about deadlines.');

  it('asks the upstream for usage and hides the usage chunk from a client that did not', async () => {
    const whole = await provider.complete(request({ messages: asked }));
    const stream = await provider.stream(request({ messages: asked }));
    expect(stream.status).toBe(200);
    expect(stream.clientRequestedUsage).toBe(false);
    const events = await collect(stream);
    expect(events[events.length - 1]?.done).toBe(true);
    const hidden = events.filter((event) => !event.forward);
    expect(hidden).toHaveLength(1);
    expect(hidden[0]?.usage).toEqual(whole.usage);
    expect(stream.usage).toEqual(whole.usage);
    const forwarded = events.filter((event) => event.forward);
    expect(streamedText(forwarded)).toBe((whole.json as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content);
  });

  it('forwards the usage chunk to a client that asked for it', async () => {
    const stream = await provider.stream(request({ messages: asked, stream_options: { include_usage: true } }));
    expect(stream.clientRequestedUsage).toBe(true);
    const events = await collect(stream);
    expect(events.every((event) => event.forward)).toBe(true);
    expect(events.filter((event) => event.usage !== undefined)).toHaveLength(1);
    expect(stream.usage?.completionTokens).toBeGreaterThan(0);
  });

  it('streams tool calls', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
    const stream = await provider.stream(request({ messages: asked, tools, tool_choice: 'required' }));
    const events = await collect(stream);
    const args = events
      .filter((event) => event.forward && !event.done)
      .flatMap((event) => (JSON.parse(event.data) as Chunk).choices.flatMap((choice) => choice.delta.tool_calls ?? []))
      .map((call) => call.function.arguments ?? '')
      .join('');
    expect(typeof (JSON.parse(args) as { q: unknown }).q).toBe('string');
    expect(stream.usage?.completionTokens).toBeGreaterThan(0);
  });

  it('fails a stream that ends before any choice finished, however cleanly it closed', async () => {
    // An upstream that sends one content chunk and [DONE], with no finish_reason: an answer cut short.
    const upstream = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"id":"x","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\ndata: [DONE]\n\n');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = upstream.address() as AddressInfo;
      const stream = await client(`http://127.0.0.1:${port}/v1`).stream(request({ messages: asked }));
      const error = await failure(collect(stream));
      expect({ kind: error.kind, message: error.message }).toEqual({ kind: 'provider', message: expect.stringMatching(/ended the stream before the answer finished/) });
    } finally {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('cancels quietly', async () => {
    const stream = await client(`http://${slowStreams.address}/v1`).stream(request({ messages: asked }));
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    stream.cancel();
    expect((await iterator.next()).done).toBe(true);
  });
});

describe('upstream errors map to one DomainError each', () => {
  const cases: Array<[string, string, ErrorKind, number, RegExp]> = [
    ['500', 'fail=500', 'provider', 502, /failed \(HTTP 500\)/],
    ['503', 'fail=503', 'provider', 502, /failed \(HTTP 503\)/],
    ['400', 'fail=400', 'validation', 400, /Simulated failure with HTTP 400/],
    ['a reset connection', 'fail=reset', 'provider', 502, /connection to the model provider failed/],
    ['a connection dropped mid-answer', 'fail=midstream', 'provider', 502, /connection to the model provider failed/],
  ];

  it.each(cases)('upstream %s', async (_label, directive, kind, httpStatus, message) => {
    const error = await failure(provider.complete(request({ messages: messages(`hi [simulator ${directive}]`) })));
    expect(error.kind).toBe(kind);
    expect(error.httpStatus).toBe(httpStatus);
    expect(error.message).toMatch(message);
  });

  it('a 429 is the provider class with the upstream retry-after', async () => {
    const error = await failure(provider.complete(request({ messages: messages('[simulator fail=429 retry-after=7]') })));
    expect(error).toMatchObject({ kind: 'provider_rate_limit', retryAfterSeconds: 7 });
    expect(error.httpStatus).toBe(429);
    expect(error.errorClass).toBe('provider');
  });

  it('a refused key says whose key it was', async () => {
    const managed = await failure(provider.complete(request({ messages: messages('[simulator fail=401]') })));
    expect(managed.kind).toBe('provider');
    expect(managed.message).toBe("The model provider rejected the gateway's credentials.");
    const byok = await failure(provider.complete(request({ messages: messages('[simulator fail=403]') }, { apiKey: BYOK_KEY, mode: 'byok' })));
    expect(byok.kind).toBe('provider');
    expect(byok.message).toBe('The model provider rejected your provider key.');
  });

  it('a parameter the model does not support is the caller’s validation error, naming it', async () => {
    const error = await failure(provider.complete(request({ model: 'sim-reasoning', messages: messages('hi'), temperature: 0.5 })));
    expect(error).toMatchObject({ kind: 'validation', field: 'temperature' });
    expect(error.message).toMatch(/Unsupported parameter: 'temperature'/);
  });

  it('errors before the first byte of a stream reject the stream call', async () => {
    const error = await failure(provider.stream(request({ messages: messages('[simulator fail=502]') })));
    expect(error.kind).toBe('provider');
  });

  it('a stream dropped mid-way fails the iteration', async () => {
    const stream = await provider.stream(request({ messages: messages('[simulator fail=midstream]') }));
    const error = await failure(collect(stream));
    expect(error.kind).toBe('provider');
  });

  it('an unreachable upstream is provider, without its address in the message', async () => {
    const port = await closedPort();
    const unreachable = client(`http://127.0.0.1:${port}/v1`, {}, 'PROVIDER_BASE_URL_SIMULATOR');
    const error = await failure(unreachable.complete(request({ messages: messages('hi') })));
    expect(error.kind).toBe('provider');
    expect(error.message).toBe('The model provider could not be reached. Retry the request.');
    expect(error.message).not.toContain(String(port));
  });
});

describe('timeouts', () => {
  it('a slow answer is a 504 timeout', async () => {
    const impatient = client(`http://${simulator.address}/v1`, { requestMs: 300 });
    const error = await failure(impatient.complete(request({ messages: messages('[simulator latency-ms=5000]') })));
    expect(error.kind).toBe('timeout');
    expect(error.httpStatus).toBe(504);
  });

  it('a stream whose headers never come is a timeout', async () => {
    const impatient = client(`http://${simulator.address}/v1`, { requestMs: 300 });
    const error = await failure(impatient.stream(request({ messages: messages('[simulator fail=timeout]') })));
    expect(error.kind).toBe('timeout');
  });

  it('a stream that goes silent is a timeout', async () => {
    const impatient = client(`http://${slowStreams.address}/v1`, { streamIdleMs: 300 });
    const stream = await impatient.stream(request({ messages: messages('hi') }));
    const error = await failure(collect(stream));
    expect(error.kind).toBe('timeout');
  });

  it("the caller's abort rejects with the caller's reason", async () => {
    const controller = new AbortController();
    const pending = provider.complete(request({ messages: messages('[simulator latency-ms=5000]') }, { signal: controller.signal }));
    const reason = new Error('client went away');
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('connections and keys', () => {
  it('reuses keep-alive connections for sequential calls', async () => {
    const pooled = client(`http://${simulator.address}/v1`);
    const before = (await simulatorStats(simulator)).connections.opened;
    for (let index = 0; index < 30; index += 1) await pooled.complete(request({ messages: messages(`call ${index}`) }));
    const opened = (await simulatorStats(simulator)).connections.opened - before;
    // undici may open a second connection while the first is being released after
    // an answer; the stats request may need one of its own. Never one per call.
    expect(opened).toBeLessThanOrEqual(3);
  });

  it('sends the key it is given, and the simulator sees which one', async () => {
    await provider.complete(request({ messages: messages('hi') }, { apiKey: BYOK_KEY, mode: 'byok' }));
    const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);
    expect((await simulatorStats(simulator)).recentKeyFingerprints.at(-1)).toBe(fingerprint(BYOK_KEY));
    await provider.complete(request({ messages: messages('hi') }));
    expect((await simulatorStats(simulator)).recentKeyFingerprints.at(-1)).toBe(fingerprint(MANAGED_KEY));
  });

  it('never lets a key into an error, its cause or a log', async () => {
    const port = await closedPort();
    const unreachable = client(`http://127.0.0.1:${port}/v1`);
    const impatient = client(`http://${simulator.address}/v1`, { requestMs: 200 });
    const errors: DomainError[] = [];
    for (const [apiKey, mode] of [[MANAGED_KEY, 'managed'], [BYOK_KEY, 'byok']] as const) {
      const failing = (content: string) => request({ messages: messages(content) }, { apiKey, mode });
      for (const directive of ['fail=400', 'fail=401', 'fail=429', 'fail=500', 'fail=reset', 'fail=midstream']) {
        errors.push(await failure(provider.complete(failing(`[simulator ${directive}]`))));
      }
      errors.push(await failure(collect(await provider.stream(failing('[simulator fail=midstream]')))));
      errors.push(await failure(impatient.complete(failing('[simulator fail=timeout]'))));
      errors.push(await failure(unreachable.complete(failing('hi'))));
    }
    for (const error of errors) {
      const rendered = `${inspect(error, { depth: 10 })} ${JSON.stringify(error)} ${error.internalReason ?? ''}`;
      expect(rendered).not.toContain(MANAGED_KEY);
      expect(rendered).not.toContain(BYOK_KEY);
    }
    for (const log of [simulator.logs(), slowStreams.logs()]) {
      expect(log).not.toContain(MANAGED_KEY);
      expect(log).not.toContain(BYOK_KEY);
    }
  });
});

describe('a changed catalog', () => {
  const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 8);
  /** Which simulator a call with `key` reached, by the key fingerprints each saw last. */
  const reached = async (key: string) => {
    const [first, second] = await Promise.all([simulatorStats(simulator), simulatorStats(slowStreams)]);
    return { simulator: first.recentKeyFingerprints.at(-1) === fingerprint(key), slowStreams: second.recentKeyFingerprints.at(-1) === fingerprint(key) };
  };

  it("sends the next call to the provider's new base URL, and keeps the old one for a catalog it refuses", async () => {
    const following = createProviderClient({ providers: { simulator: { base_url: `http://${simulator.address}/v1` } } });
    clients.push(following);
    const call = async (apiKey: string) => {
      await following.complete(request({ messages: messages('hi') }, { apiKey }));
      return reached(apiKey);
    };
    expect(await call('sk-before-0000000000000000000000000000')).toEqual({ simulator: true, slowStreams: false });

    following.useProviders({ simulator: { base_url: `http://${slowStreams.address}/v1` } });
    expect(await call('sk-after-00000000000000000000000000000')).toEqual({ simulator: false, slowStreams: true });

    expect(() => following.useProviders({ simulator: { base_url: 'ftp://elsewhere/v1' } })).toThrow(/must be an http or https URL/);
    expect(await call('sk-refused-000000000000000000000000000')).toEqual({ simulator: false, slowStreams: true });
  });

  it('answers a provider the catalog no longer has as unconfigured', async () => {
    const following = createProviderClient({ providers: { simulator: { base_url: `http://${simulator.address}/v1` } } });
    clients.push(following);
    following.useProviders({ other: { base_url: `http://${simulator.address}/v1` } });
    expect((await failure(following.complete(request({ messages: messages('hi') })))).message).toBe('No upstream is configured for provider simulator.');
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
