import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { bindToRequest, CAPTURE_RESPONSE_HEADERS, traceRequests } from './http-spans';
import { startTelemetry, type Telemetry } from './telemetry';

describe('the server span of an HTTP request', () => {
  const exporter = new InMemorySpanExporter();
  /** The trace id the handler saw while the request was read, and once its body was in. */
  const seen: Array<{ atStart: string | undefined; afterBody: string | undefined }> = [];
  let telemetry: Telemetry;
  let server: Server;
  let base: string;

  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const atStart = trace.getActiveSpan()?.spanContext().traceId;
    response.setHeader('x-service-request-id', atStart ?? 'none');
    request.resume();
    request.once(
      'end',
      bindToRequest(request, () => {
        seen.push({ atStart, afterBody: trace.getActiveSpan()?.spanContext().traceId });
        response.statusCode = Number(request.headers['x-status'] ?? 200);
        response.end('ok');
      }),
    );
  };

  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    server = createServer(traceRequests(handler));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    await telemetry.shutdown();
  });

  beforeEach(() => {
    exporter.reset();
    seen.length = 0;
  });

  /** The finished spans once the response's close has ended the request's span. */
  async function spansAfter(response: Response) {
    await response.text();
    for (let tries = 0; exporter.getFinishedSpans().length === 0 && tries < 100; tries++) await new Promise((resolve) => setImmediate(resolve));
    return exporter.getFinishedSpans();
  }

  it('is a new trace named after the method, with the stable HTTP attributes and the captured headers', async () => {
    const callerTraceId = 'a'.repeat(32);
    const response = await fetch(`${base}/v1/chat/completions?sig=secret&page=2`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'user-agent': 'test/1', 'x-request-id': 'ingress-1', traceparent: `00-${callerTraceId}-${'b'.repeat(16)}-01` },
    });
    const [span, ...others] = await spansAfter(response);
    expect(others).toEqual([]);
    const requestId = response.headers.get('x-service-request-id');
    expect(span?.spanContext().traceId).toBe(requestId);
    expect(requestId).not.toBe(callerTraceId);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.name).toBe('POST');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.attributes).toEqual({
      'http.request.method': 'POST',
      'url.scheme': 'http',
      'url.path': '/v1/chat/completions',
      'url.query': 'sig=REDACTED&page=2',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(base).port),
      'network.peer.address': '127.0.0.1',
      'network.peer.port': expect.any(Number),
      'network.protocol.version': '1.1',
      'client.address': '127.0.0.1',
      'user_agent.original': 'test/1',
      'http.request.header.x-request-id': ['ingress-1'],
      'http.response.header.x-service-request-id': [requestId],
      'http.response.status_code': 200,
    });
  });

  it("runs the listener, and what is bound to the request, in the request's span", async () => {
    const response = await fetch(`${base}/anything`, { method: 'POST', body: 'x'.repeat(200_000) });
    await spansAfter(response);
    const requestId = response.headers.get('x-service-request-id');
    expect(seen).toEqual([{ atStart: requestId, afterBody: requestId }]);
  });

  it('marks a 5xx, not a 4xx, as an error', async () => {
    const [failed] = await spansAfter(await fetch(`${base}/`, { headers: { 'x-status': '503' } }));
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    exporter.reset();
    const [refused] = await spansAfter(await fetch(`${base}/`, { headers: { 'x-status': '404' } }));
    expect(refused?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('makes no span for probes and scrapes', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics?x=1']) {
      const response = await fetch(`${base}${path}`);
      await response.text();
      expect(response.headers.get('x-service-request-id')).toBe('none');
    }
    // A request after them is the only span.
    expect(await spansAfter(await fetch(`${base}/after`))).toHaveLength(1);
  });

  it('refuses to capture a header that may carry a credential', () => {
    expect(() => traceRequests(handler, { [CAPTURE_RESPONSE_HEADERS]: 'set-cookie' })).toThrow('may carry a credential');
  });
});
