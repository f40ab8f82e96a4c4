import './support/catalog';
import OpenAI from 'openai';
import { expectApiError, expectHeaderSet, failure } from './support/headers';
import { eventually } from './support/eventually';
import { startE2e, type E2e } from './support/harness';
import { scrape, total } from '../support/prometheus';
import { streamRaw } from './support/http';
import { committedTrace } from './support/ledger';
import { routingPolicyHeld } from './support/routing-policy';
import { simulatorDirective, simulatorStats } from './support/simulator';

/**
 * How the gateway degrades (docs/decisions.md#the-gateway), each backend stopped for real and
 * restarted after: the ledger and pricing are best-effort (200, unmetered
 * or unpriced), auth is not (503, and nothing reaches the provider), and the
 * router is not either until edge holds its routing policy
 * (docs/decisions.md#the-routing-policy-edge-holds). Then provider failures: 5xx, 429, reset and timeout.
 */
jest.setTimeout(90_000);

/** Small, so the timeout case takes a moment; every other answer comes well within it. */
const PROVIDER_TIMEOUT_MS = 1500;

let e2e: E2e;
let client: OpenAI;
let key: string;

beforeAll(async () => {
  e2e = await startE2e('e2e_degradation', {
    // A lease stays held while the ledger is stopped under it, however long the stop takes: it lasts ten minutes here.
    serviceEnv: { edge: { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) }, ledger: { LEASE_TTL_MS: '600000' } },
  });
  key = (await e2e.seed({ plan: 'simulated' })).key;
  client = e2e.client(key);
});

afterAll(() => e2e?.close());

const ask = (content = 'What is a lighthouse?', caller = client) => caller.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content }] }).withResponse();
/** A caller of its own, for which edge holds no allowance lease yet. */
const freshClient = async () => e2e.client((await e2e.seed({ plan: 'simulated' })).key);
const chatCount = async () => (await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions;

/**
 * After a ledger restart edge opens its WatchLeases stream again on its backoff, and the
 * stream's first push tells every lease held to ask anew: a test that needs a lease to
 * stay put takes it once the stream is open.
 */
const leasePushesOpen = () =>
  eventually(
    async () => (total((await scrape(e2e.stack.services.ledger.metricsPort)).samples, 'ledger_lease_watchers') >= 1 ? true : undefined),
    "edge's lease pushes stream open on the ledger",
  );

/** After a restart the gateway's channel reconnects on its own; the first call or two may still find it down. */
function recovered(probe: (headers: Headers) => boolean, what: string) {
  return eventually(async () => {
    try {
      const { response } = await ask();
      return probe(response.headers) ? response.headers : undefined;
    } catch {
      return undefined;
    }
  }, what);
}

describe('with a backend down', () => {
  // First, while edge holds no lease: a held slice renews every few seconds, and a renewal that fell
  // in this outage would be one more failed call than this test's own requests made.
  it('logs a ledger outage once, counts every failed call, and logs its end once', async () => {
    const edge = e2e.stack.services.edge;
    const failures = async () => total((await scrape(edge.metricsPort)).samples, 'dependency_failures_total', { dependency: 'ledger' });
    const failedBefore = await failures();
    const logOffset = edge.logs().length;
    const REQUESTS = 5;
    const caller = await freshClient();
    await e2e.stack.services.ledger.stop();
    try {
      for (let request = 0; request < REQUESTS; request += 1) expect((await ask(undefined, caller)).response.headers.get('x-service-metered')).toBe('false');
      // Each request's Lease, asked once more before it went through unenforced, and its record failed; each failure was counted.
      expect((await failures()) - failedBefore).toBe(REQUESTS * 3);
    } finally {
      await e2e.restart('ledger');
    }
    await recovered((headers) => headers.get('x-service-metered') === 'true', 'a metered call after the ledger restarted');
    const lines = edge
      .logs()
      .slice(logOffset)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg?: string; dependency?: string; down_seconds?: number; err?: unknown });
    const about = (msg: string) => lines.filter((line) => line.msg === msg && line.dependency === 'ledger');
    expect(about('dependency unavailable')).toHaveLength(1);
    expect(about('dependency available again')).toEqual([expect.objectContaining({ down_seconds: expect.any(Number) })]);
    // No line per request, no stack trace.
    expect(lines.filter((line) => line.err !== undefined)).toEqual([]);
  });

  it('serves unmetered while the ledger is down, and meters again once it is back', async () => {
    // A caller edge holds no lease for: without the ledger its quota is unknown.
    const caller = await freshClient();
    await e2e.stack.services.ledger.stop();
    try {
      const { data, response } = await ask(undefined, caller);
      expect(data.choices[0]?.message.content).toEqual(expect.stringMatching(/\S/));
      expectHeaderSet(response.headers);
      expect({
        metered: response.headers.get('x-service-metered'),
        priced: response.headers.get('x-service-priced'),
        // Without the ledger the quota is unknown, so no meter is claimed.
        meter: response.headers.get('x-service-quota-meter'),
      }).toEqual({ metered: 'false', priced: 'true', meter: '' });
      expect(response.headers.get('x-service-cost-usd')).toMatch(/^\d+\.\d{6}$/);
    } finally {
      await e2e.restart('ledger');
    }
    const headers = await recovered((headers) => headers.get('x-service-metered') === 'true', 'a metered call after the ledger restarted');
    expect(headers.get('x-service-quota-meter')).toBe('spend');
  });

  it('keeps admitting within a lease it holds while the ledger is down, with the counters of the lease answer', async () => {
    await leasePushesOpen();
    const caller = await freshClient();
    // A first call leases a slice of the allowance; the next is admitted within it without asking the ledger.
    expect((await ask(undefined, caller)).response.headers.get('x-service-metered')).toBe('true');
    await e2e.stack.services.ledger.stop();
    try {
      const { response } = await ask(undefined, caller);
      expect({ metered: response.headers.get('x-service-metered'), meter: response.headers.get('x-service-quota-meter') }).toEqual({ metered: 'false', meter: 'spend' });
    } finally {
      await e2e.restart('ledger');
    }
    await recovered((headers) => headers.get('x-service-metered') === 'true', 'a metered call after the ledger restarted');
  });

  it('serves unpriced while pricing is down and edge holds no price list yet, recorded as unpriced and not as free', async () => {
    await e2e.stack.services.pricing.stop();
    // An edge that started while pricing was down has no price list to price from (with one, it prices: price-list.test.ts).
    await e2e.stack.services.edge.stop();
    await e2e.restart('edge');
    let requestId: string;
    try {
      const { response } = await ask();
      expectHeaderSet(response.headers);
      expect({
        cost: response.headers.get('x-service-cost-usd'),
        savings: response.headers.get('x-service-savings-usd'),
        priced: response.headers.get('x-service-priced'),
        metered: response.headers.get('x-service-metered'),
        baseline: response.headers.get('x-service-baseline-model'),
      }).toEqual({ cost: '', savings: '', priced: 'false', metered: 'true', baseline: null });
      requestId = response.headers.get('x-service-request-id') ?? '';
    } finally {
      await e2e.restart('pricing');
    }
    expect(await committedTrace(e2e.ledger.db, requestId)).toMatchObject({ priced: false, cost_micros: null, http_status: 200 });
    await recovered((headers) => headers.get('x-service-priced') === 'true', 'a priced call after pricing restarted');
  });

  /** Served nothing while `down`: 503 internal, no model, nothing reached the provider. */
  async function servesNothing(): Promise<void> {
    const before = await chatCount();
    const { body, headers } = expectApiError(await failure(ask()), 503, 'internal');
    expect(body.message).not.toMatch(/at .*\.ts|Error:/);
    // Nothing was served unauthenticated or unrouted.
    expect(headers.get('x-service-model')).toBe('');
    expect(await chatCount()).toBe(before);
  }

  it('answers 503 internal while auth is down, and serves nothing', async () => {
    await e2e.stack.services.auth.stop();
    try {
      await servesNothing();
    } finally {
      await e2e.restart('auth');
    }
    await recovered(() => true, 'a served call after auth restarted');
  });

  it('routes with the policy it holds while the router is down, answering as the router did', async () => {
    await routingPolicyHeld(e2e.stack.services.edge);
    const routing = (headers: Headers) => ['x-service-model', 'x-service-tier', 'x-service-complexity', 'x-service-routed'].map((name) => headers.get(name));
    const before = routing((await ask()).response.headers);
    await e2e.stack.services.router.stop();
    try {
      const served = await chatCount();
      const { response } = await ask();
      expectHeaderSet(response.headers);
      expect(routing(response.headers)).toEqual(before);
      expect(await chatCount()).toBe(served + 1);
    } finally {
      await e2e.restart('router');
    }
  });

  it('answers 503 internal, serving nothing, from an edge that started while the router was down (no policy held)', async () => {
    await e2e.stack.services.router.stop();
    await e2e.stack.services.edge.stop();
    await e2e.restart('edge');
    try {
      await servesNothing();
    } finally {
      await e2e.restart('router');
    }
    await recovered(() => true, 'a served call after the router restarted');
  });
});

describe('provider failures', () => {
  it('answers an upstream 500 with 502 provider', async () => {
    const { body, headers } = expectApiError(await failure(ask(`Hi. ${simulatorDirective({ fail: 500 })}`)), 502, 'provider');
    expect(body.message).not.toMatch(/at .*\.ts/);
    // The request was routed and recorded: the header set says so.
    expect({ model: headers.get('x-service-model'), metered: headers.get('x-service-metered'), cost: headers.get('x-service-cost-usd') }).toEqual({
      model: 'sim-small',
      metered: 'true',
      cost: '',
    });
    expect(await committedTrace(e2e.ledger.db, body.request_id)).toMatchObject({ http_status: 502, error_class: 'provider', served_model: 'sim-small' });
  });

  it('answers a reset connection with 502 provider', async () => {
    expectApiError(await failure(ask(`Hi. ${simulatorDirective({ fail: 'reset' })}`)), 502, 'provider');
  });

  it("answers an upstream 429 with 429 provider and the provider's retry-after", async () => {
    const { headers } = expectApiError(await failure(ask(`Hi. ${simulatorDirective({ fail: 429, 'retry-after': 7 })}`)), 429, 'provider');
    expect(headers.get('retry-after')).toBe('7');
  });

  it('answers a provider slower than the timeout with 504 timeout', async () => {
    const { body } = expectApiError(await failure(ask(`Hi. ${simulatorDirective({ 'latency-ms': PROVIDER_TIMEOUT_MS * 4 })}`)), 504, 'timeout');
    expect(await committedTrace(e2e.ledger.db, body.request_id)).toMatchObject({ http_status: 504, error_class: 'timeout' });
  });

  it('answers a streamed request whose provider fails before the first byte with the same JSON error', async () => {
    const streamed = client.chat.completions.create({
      model: 'auto',
      stream: true,
      messages: [{ role: 'user', content: `Hi. ${simulatorDirective({ fail: 503 })}` }],
    });
    expectApiError(await failure(streamed), 502, 'provider');
  });

  it('ends a stream the provider drops midway with one error event carrying x_service, no [DONE], and the trailers', async () => {
    const body = { model: 'auto', messages: [{ role: 'user', content: `Tell me a long story. ${simulatorDirective({ fail: 'midstream' })}` }] };
    const streamed = await streamRaw(`${e2e.gatewayUrl}/chat/completions`, { ...body, stream: true }, { authorization: `Bearer ${key}` });
    const requestId = streamed.headers.get('x-service-request-id');
    // Already 200: the failure can only be told inside the stream.
    expect(streamed.status).toBe(200);
    // No [DONE]: a reader that waits for it knows the answer is incomplete.
    expect(streamed.done).toBe(false);
    const errorEvent = streamed.events.at(-1) as { error?: unknown; x_service?: unknown };
    expect(errorEvent.error).toEqual({ message: expect.any(String), type: 'provider', code: 502, request_id: requestId });
    expect(errorEvent.x_service).toMatchObject({ request_id: requestId, metered: true });
    // Every event before it is a chunk with a choice, as strict clients read them.
    for (const chunk of streamed.events.slice(0, -1) as OpenAI.ChatCompletionChunk[]) expect(chunk.choices[0]).toBeDefined();
    expect(streamed.trailers.get('x-service-metered')).toBe('true');
    expect(await committedTrace(e2e.ledger.db, requestId ?? '')).toMatchObject({ http_status: 502, error_class: 'provider', stream: true });

    // The official client surfaces it as an error, after the chunks that did arrive.
    const stream = await client.chat.completions.create({ ...body, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    const thrown = await failure(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
    );
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'provider', code: 502 });
  });
});

describe('logs', () => {
  it('hold no credential in any process, the restarted ones included', () => {
    expect(e2e.credentialsInLogs()).toEqual([]);
  });
});
