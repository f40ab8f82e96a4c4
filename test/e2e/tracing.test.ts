import './support/catalog';
import { randomBytes } from 'node:crypto';
import { findCredentials } from '../support/secrets-scan';
import { eventually } from './support/eventually';
import { startE2e, type Caller, type E2e } from './support/harness';
import { routingPolicyHeld } from './support/routing-policy';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';

/**
 * One request is one trace (docs/api.md): every process exports its spans over
 * OTLP/HTTP to a receiver run by this suite, and the spans of edge, auth
 * and ledger for a call all carry the trace id the client got as
 * x-service-request-id (pricing and the router are not asked: edge prices
 * and routes with the price list and the routing policy it holds). A traceparent sent by the client is kept as
 * a link, never adopted as the request id. A key's repeat calls within the
 * principal cache's TTL are vouched for by edge's cache, without auth. The
 * model provider call is a span of its own, in OpenTelemetry's GenAI terms,
 * with its cost. Probes make no traces. The stack runs the compiled
 * services, as the images do, so this also proves the bundles are
 * instrumented.
 */
jest.setTimeout(90_000);

const TRACED_SERVICES = ['edge', 'auth', 'ledger'] as const;
/** A repeat caller's trace: edge vouches for the key from its cache, so auth is not asked. */
const CACHED_CALL_SERVICES = ['edge', 'ledger'] as const;

let receiver: OtlpReceiver;
let e2e: E2e;
let caller: Caller;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  e2e = await startE2e('e2e_tracing', {
    compiled: true,
    env: {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });
  caller = await e2e.seed({ plan: 'simulated' });
  // Until edge holds pricing's price list it asks Price, which would put pricing in the first trace.
  await eventually(async () => (e2e.stack.services.edge.logs().includes('price list received') ? true : undefined), "edge holding pricing's price list");
  // Likewise the routing policy and Route.
  await routingPolicyHeld(e2e.stack.services.edge);
});

afterAll(async () => {
  await e2e?.close();
  await receiver?.close();
});

/** Every call here ends with its record; the ledger's span of it may come a batch after its Lease span. */
const RECORD_SPAN = 'grpc.gateway.ledger.v1.LedgerService/StreamRecords';

/**
 * Spans arrive in batches from six processes: a trace is whole once every service, its root,
 * every parent and the ledger's record span are in.
 */
function isWhole(spans: ReceivedSpan[], expected: readonly string[]): boolean {
  const ids = new Set(spans.map((span) => span.spanId));
  const services = new Set(spans.map((span) => span.service));
  return (
    expected.every((service) => services.has(service)) &&
    spans.some((span) => span.service === 'ledger' && span.name === RECORD_SPAN) &&
    spans.some((span) => span.parentSpanId === '') &&
    spans.every((span) => span.parentSpanId === '' || ids.has(span.parentSpanId))
  );
}

/** The spans of one trace once it is whole, or, if it never becomes whole, what arrived (for the assertions to show). */
async function traceSpans(traceId: string, expected: readonly string[] = TRACED_SERVICES): Promise<ReceivedSpan[]> {
  const spansOf = () => receiver.spans().filter((span) => span.traceId === traceId);
  try {
    return await eventually(async () => (isWhole(spansOf(), expected) ? spansOf() : undefined), `the whole trace ${traceId}`);
  } catch {
    return spansOf();
  }
}

describe('one request, one trace', () => {
  it('carries the request id as the trace id through edge, auth and ledger', async () => {
    const { response } = await e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Trace me.' }] }).withResponse();
    const requestId = response.headers.get('x-service-request-id') ?? '';
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);

    const spans = await traceSpans(requestId);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(TRACED_SERVICES));
    // One tree: a single root (edge's server span), every other span's parent is in the trace.
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => !ids.has(span.parentSpanId));
    expect(roots).toEqual([expect.objectContaining({ service: 'edge', parentSpanId: '' })]);
    // Every hop of the hot path, as its service saw it; the caller's first call asks for edge's lease on its allowance.
    expect(spans.filter((span) => span.service !== 'edge').map((span) => `${span.service} ${span.name}`)).toEqual(
      expect.arrayContaining([
        'auth grpc.gateway.auth.v1.AuthService/Authenticate',
        'ledger grpc.gateway.ledger.v1.LedgerService/Lease',
        `ledger ${RECORD_SPAN}`,
      ]),
    );
  });

  it('leaves auth out of a repeat call, vouched for by edge from its cache', async () => {
    const ask = () => e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Again.' }] }).withResponse();
    await ask();
    const { response } = await ask();
    const spans = await traceSpans(response.headers.get('x-service-request-id') ?? '', CACHED_CALL_SERVICES);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(CACHED_CALL_SERVICES));
  });

  it("starts a new trace for a client's traceparent, keeping it as a link", async () => {
    const callerTraceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    // A key of its own: its first call is verified by auth, so the trace holds every service.
    const { key } = await e2e.seed({ plan: 'simulated' });
    const { response } = await e2e
      .client(key)
      .chat.completions.create(
        { model: 'auto', messages: [{ role: 'user', content: 'Trace me too.' }] },
        { headers: { traceparent: `00-${callerTraceId}-${callerSpanId}-01` } },
      )
      .withResponse();
    const requestId = response.headers.get('x-service-request-id') ?? '';
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(requestId).not.toBe(callerTraceId);

    const spans = await traceSpans(requestId);
    const edgeRoot = spans.find((span) => span.service === 'edge' && span.parentSpanId === '');
    expect(edgeRoot?.links).toEqual([{ traceId: callerTraceId, spanId: callerSpanId }]);
    // No span anywhere joined the caller's trace.
    expect(receiver.spans().filter((span) => span.traceId === callerTraceId)).toEqual([]);
  });

  it('exports no credential in any span', async () => {
    const { key } = await e2e.seed({ plan: 'simulated' });
    const { response } = await e2e.client(key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Secret?' }] }).withResponse();
    await traceSpans(response.headers.get('x-service-request-id') ?? '');
    const exported = receiver.payloads().join('\n');
    expect(findCredentials(exported)).toEqual([]);
    expect(exported.includes(key)).toBe(false);
    expect(exported.includes(caller.key)).toBe(false);
    expect(exported.includes(e2e.stack.managedProviderKey)).toBe(false);
  });
});

describe('the model provider call', () => {
  /** The trace's spans once its provider span has arrived too. */
  const withProviderSpan = (traceId: string) =>
    eventually(async () => {
      const spans = await traceSpans(traceId, CACHED_CALL_SERVICES);
      return spans.some(isProviderSpan) ? spans : undefined;
    }, `the provider span of ${traceId}`);
  const isProviderSpan = (span: ReceivedSpan) => span.service === 'edge' && span.name.startsWith('chat ');

  it('is a GenAI client span under edge\'s server span, with the models, the token usage and the cost', async () => {
    const { data, response } = await e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'What does it cost?' }] }).withResponse();
    const requestId = response.headers.get('x-service-request-id') ?? '';
    const spans = await withProviderSpan(requestId);
    const root = spans.find((span) => span.parentSpanId === '');
    const provider = spans.find(isProviderSpan);
    const servedModel = response.headers.get('x-service-model');
    expect(provider).toMatchObject({
      name: `chat ${servedModel}`,
      kind: 3,
      parentSpanId: root?.spanId,
      attributes: expect.objectContaining({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'simulator',
        'gen_ai.system': 'simulator',
        'gen_ai.request.model': servedModel,
        'gen_ai.response.model': data.model,
        'gen_ai.response.id': data.id,
        'gen_ai.response.finish_reasons': [data.choices[0]?.finish_reason],
        'gen_ai.usage.input_tokens': data.usage?.prompt_tokens,
        'gen_ai.usage.output_tokens': data.usage?.completion_tokens,
        'gateway.priced': true,
        'gateway.cost_usd': response.headers.get('x-service-cost-usd'),
        'gateway.stream': false,
        'server.address': new URL(e2e.stack.simulatorUrl).hostname,
        'server.port': Number(new URL(e2e.stack.simulatorUrl).port),
      }),
    });
  });

  it('is a span for a stream too, with the usage the stream reported and its cost', async () => {
    const { data: stream, response } = await e2e
      .client(caller.key)
      .chat.completions.create({ model: 'auto', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Stream it.' }] })
      .withResponse();
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    let cost: unknown;
    for await (const chunk of stream) {
      usage = chunk.usage ?? usage;
      cost = (chunk as { x_service?: { cost_usd?: unknown } }).x_service?.cost_usd ?? cost;
    }
    const spans = await withProviderSpan(response.headers.get('x-service-request-id') ?? '');
    expect(spans.find(isProviderSpan)?.attributes).toEqual(
      expect.objectContaining({
        'gen_ai.usage.input_tokens': usage?.prompt_tokens,
        'gen_ai.usage.output_tokens': usage?.completion_tokens,
        'gen_ai.response.finish_reasons': ['stop'],
        'gateway.stream': true,
        'gateway.cost_usd': cost,
      }),
    );
  });
});

describe('span attributes an SRE searches by', () => {
  it("puts the request id, and a proxy's x-request-id, on edge's server span", async () => {
    const { response } = await e2e
      .client(caller.key, { 'x-request-id': 'ingress-4f1c' })
      .chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Find me.' }] })
      .withResponse();
    const requestId = response.headers.get('x-service-request-id') ?? '';
    const root = (await traceSpans(requestId, CACHED_CALL_SERVICES)).find((span) => span.parentSpanId === '');
    expect(root?.attributes).toEqual(
      expect.objectContaining({ 'http.response.header.x-service-request-id': [requestId], 'http.request.header.x-request-id': ['ingress-4f1c'] }),
    );
  });
});

describe('probes', () => {
  it('make no traces: no span for /healthz, /readyz, /metrics or a gRPC health check in any process', async () => {
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${e2e.stack.baseUrl}${path}`)).status).toBe(200);
    await fetch(`http://127.0.0.1:${e2e.stack.services.edge.metricsPort}/metrics`).then((response) => response.text());
    // Spans leave each process in the order they end: once a later call's trace is whole, the probes' would have come.
    const { response } = await e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'After the probes.' }] }).withResponse();
    await traceSpans(response.headers.get('x-service-request-id') ?? '', CACHED_CALL_SERVICES);
    const probeSpans = receiver
      .spans()
      .filter((span) => ['/healthz', '/readyz', '/metrics'].includes(String(span.attributes['url.path'])) || span.name.includes('grpc.health.v1.Health'));
    expect(probeSpans).toEqual([]);
  });
});

describe('logs', () => {
  it('hold no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key])).toEqual([]);
  });
});
