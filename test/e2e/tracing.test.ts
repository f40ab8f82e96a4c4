import './support/catalog';
import { randomBytes } from 'node:crypto';
import { findCredentials } from '../support/secrets-scan';
import { eventually } from './support/eventually';
import { startE2e, type Caller, type E2e } from './support/harness';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';

/**
 * One request is one trace (DESIGN 4): every process exports its spans over
 * OTLP/HTTP to a receiver run by this suite, and the spans of edge, auth,
 * router, pricing and ledger for a call all carry the trace id the client
 * got as x-service-request-id. A traceparent sent by the client is kept as
 * a link, never adopted as the request id. A key's repeat calls within the
 * principal cache's TTL are vouched for by edge's cache, without auth.
 */
jest.setTimeout(90_000);

const TRACED_SERVICES = ['edge', 'auth', 'router', 'pricing', 'ledger'] as const;

let receiver: OtlpReceiver;
let e2e: E2e;
let caller: Caller;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  e2e = await startE2e('e2e_tracing', {
    env: {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  });
  caller = await e2e.seed({ plan: 'simulated' });
});

afterAll(async () => {
  await e2e?.close();
  await receiver?.close();
});

/** Spans arrive in batches from six processes: a trace is whole once every service, its root and every parent are in. */
function isWhole(spans: ReceivedSpan[], expected: readonly string[]): boolean {
  const ids = new Set(spans.map((span) => span.spanId));
  const services = new Set(spans.map((span) => span.service));
  return (
    expected.every((service) => services.has(service)) &&
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
  it('carries the request id as the trace id through edge, auth, router, pricing and ledger', async () => {
    const { response } = await e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Trace me.' }] }).withResponse();
    const requestId = response.headers.get('x-service-request-id') ?? '';
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);

    const spans = await traceSpans(requestId);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(TRACED_SERVICES));
    // One tree: a single root (edge's server span), every other span's parent is in the trace.
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => !ids.has(span.parentSpanId));
    expect(roots).toEqual([expect.objectContaining({ service: 'edge', parentSpanId: '' })]);
    // Every hop of the hot path, as its service saw it.
    expect(spans.filter((span) => span.service !== 'edge').map((span) => `${span.service} ${span.name}`)).toEqual(
      expect.arrayContaining([
        'auth grpc.gateway.auth.v1.AuthService/Authenticate',
        'router grpc.gateway.router.v1.RouterService/Route',
        'ledger grpc.gateway.ledger.v1.LedgerService/CheckQuota',
        'pricing grpc.gateway.pricing.v1.PricingService/Price',
        'ledger grpc.gateway.ledger.v1.LedgerService/Record',
      ]),
    );
  });

  it('leaves auth out of a repeat call, vouched for by edge from its cache', async () => {
    const ask = () => e2e.client(caller.key).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Again.' }] }).withResponse();
    await ask();
    const { response } = await ask();
    const spans = await traceSpans(response.headers.get('x-service-request-id') ?? '', ['edge', 'router', 'pricing', 'ledger']);
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['edge', 'router', 'pricing', 'ledger']));
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

describe('logs', () => {
  it('hold no credential in any process', () => {
    expect(e2e.credentialsInLogs([caller.key])).toEqual([]);
  });
});
