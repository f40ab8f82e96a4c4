import { SpanKind, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { samplePrincipal } from '../../../../test/support/principals';
import { DomainError } from '../errors';
import { capturedLogger } from '../../test/support/captured-logger';
import { startTelemetry, type Telemetry } from '../telemetry';
import { grpcTransport, inProcessTransport, type RunningTransport } from '../../test/support/transports';
import type { PromiseClient } from './client';

const definition = { authenticate: AuthServiceService.authenticate };
const METHOD = 'grpc.gateway.auth.v1.AuthService/Authenticate';

// One telemetry per process: OpenTelemetry's global tracer provider is registered once.
const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
beforeAll(() => {
  telemetry = startTelemetry({ serviceName: 'test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterAll(() => telemetry.shutdown());

describe.each([grpcTransport, inProcessTransport])('the trace of $name', (transport) => {
  const seenByHandler: Array<SpanContext | undefined> = [];
  const logs = capturedLogger();
  let running: RunningTransport<typeof definition>;
  let client: PromiseClient<typeof definition>;

  beforeAll(async () => {
    running = await transport.start(
      definition,
      {
        authenticate: async ({ credential }) => {
          seenByHandler.push(trace.getActiveSpan()?.spanContext());
          if (credential === 'crash') throw new Error('the handler broke');
          if (credential === 'refused') throw new DomainError('auth', 'Invalid credential.');
          return { principal: samplePrincipal('org-1') };
        },
      },
      logs.logger,
    );
    client = running.client;
  });

  afterAll(() => running.stop());

  beforeEach(() => {
    exporter.reset();
    seenByHandler.length = 0;
  });

  /** One call inside a span of the caller's, and every span it produced. */
  async function callInSpan(credential: string) {
    const outcome = await trace.getTracer('test').startActiveSpan('caller', async (span) => {
      try {
        return await client.authenticate({ credential, agentId: '' }).then(
          () => 'ok',
          (error: unknown) => error,
        );
      } finally {
        span.end();
      }
    });
    const spans = exporter.getFinishedSpans();
    return {
      outcome,
      caller: spans.find((span) => span.name === 'caller'),
      clientSpan: spans.find((span) => span.name === METHOD && span.kind === SpanKind.CLIENT),
      serverSpan: spans.find((span) => span.name === METHOD && span.kind === SpanKind.SERVER),
    };
  }

  it("carries the caller's trace to the server, client span parent of the server span, and runs the handler inside it", async () => {
    const { outcome, caller, clientSpan, serverSpan } = await callInSpan('fine');
    expect(outcome).toBe('ok');
    expect(caller).toBeDefined();
    const traceId = caller?.spanContext().traceId;
    expect(clientSpan?.spanContext().traceId).toBe(traceId);
    expect(clientSpan?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(serverSpan?.spanContext().traceId).toBe(traceId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    expect(seenByHandler).toEqual([expect.objectContaining({ traceId, spanId: serverSpan?.spanContext().spanId })]);
    for (const span of [clientSpan, serverSpan]) {
      expect(span?.attributes).toMatchObject({
        'rpc.system': 'grpc',
        'rpc.service': 'gateway.auth.v1.AuthService',
        'rpc.method': 'Authenticate',
        'rpc.grpc.status_code': 0,
      });
      expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
    }
    const peer = running.peer;
    expect(clientSpan?.attributes).toMatchObject(peer ? { 'server.address': peer.address, 'server.port': peer.port } : {});
    if (!peer) expect(clientSpan?.attributes['server.address']).toBeUndefined();
  });

  it('marks both spans of a refused call as errors with its status code', async () => {
    const { outcome, clientSpan, serverSpan } = await callInSpan('refused');
    expect(outcome).toBeInstanceOf(DomainError);
    for (const span of [clientSpan, serverSpan]) {
      expect(span?.attributes['rpc.grpc.status_code']).toBe(16);
      expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    }
  });

  it("logs a handler's failure inside the call's trace", async () => {
    const { serverSpan } = await callInSpan('crash');
    const failure = logs.lines().find((line) => line.msg === 'rpc failed');
    expect(failure).toMatchObject({ trace_id: serverSpan?.spanContext().traceId, span_id: serverSpan?.spanContext().spanId });
  });
});
