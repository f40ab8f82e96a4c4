import { trace, type SpanContext } from '@opentelemetry/api';
import { AuthServiceService } from '@gateway/proto/gen/gateway/auth/v1/auth';
import { LedgerServiceService, RecordRequest } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { samplePrincipal } from '../../../../test/support/principals';
import { capturedLogger } from '../../test/support/captured-logger';
import { startTelemetry, type Telemetry } from '../telemetry';
import { grpcTransport, inProcessTransport, type RunningTransport } from '../../test/support/transports';

/**
 * A process with nowhere to export spans to records none, so its calls make
 * no spans of their own (call-spans.ts): the handler runs in the caller's own
 * span context, and its logs carry the caller's trace id, the request id.
 * (With spans recorded, call-spans.test.ts.)
 */
const definition = { authenticate: AuthServiceService.authenticate, streamRecords: LedgerServiceService.streamRecords };

// One telemetry per process, as a service starts it with no OTLP endpoint set.
let telemetry: Telemetry;
beforeAll(() => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  delete process.env.OTEL_TRACES_SAMPLER;
  telemetry = startTelemetry({ serviceName: 'test' });
});
afterAll(() => telemetry.shutdown());

describe.each([grpcTransport, inProcessTransport])('calls over $name where nothing is recorded', (transport) => {
  const logs = capturedLogger();
  const seenByHandler: Array<SpanContext | undefined> = [];
  let running: RunningTransport<typeof definition>;

  beforeAll(async () => {
    running = await transport.start(
      definition,
      {
        authenticate: () => {
          seenByHandler.push(trace.getActiveSpan()?.spanContext());
          logs.logger.info('authenticating');
          return Promise.resolve({ principal: samplePrincipal('org-1') });
        },
        streamRecords: () => {
          seenByHandler.push(trace.getActiveSpan()?.spanContext());
          return Promise.resolve({ accepted: true, quota: undefined, leaseValidForMs: 0 });
        },
      },
      logs.logger,
    );
  });
  afterAll(() => running.stop());
  beforeEach(() => {
    seenByHandler.length = 0;
  });

  /** The caller's span context, as a request's server span in edge would be: not recorded, its trace id the request id. */
  const inCallerSpan = (call: () => Promise<unknown>) =>
    trace.getTracer('test').startActiveSpan('caller', async (span) => {
      try {
        expect(span.isRecording()).toBe(false);
        await call();
        return span.spanContext();
      } finally {
        span.end();
      }
    });

  it('runs a unary call in the caller span context itself, and logs its trace id', async () => {
    const caller = await inCallerSpan(() => running.client.authenticate({ credential: 'key', agentId: '' }));
    expect(seenByHandler).toEqual([expect.objectContaining({ traceId: caller.traceId, spanId: caller.spanId })]);
    expect(logs.lines().filter((line) => line.msg === 'authenticating').at(-1)).toMatchObject({ trace_id: caller.traceId });
  });

  it('runs a call carried over a stream in the caller span context itself', async () => {
    const caller = await inCallerSpan(() => running.client.streamRecords(RecordRequest.fromPartial({ requestId: 'a'.repeat(32) })));
    expect(seenByHandler).toEqual([expect.objectContaining({ traceId: caller.traceId, spanId: caller.spanId })]);
  });

  it('makes up no trace for a call made outside any span', async () => {
    await running.client.authenticate({ credential: 'key', agentId: '' });
    expect(seenByHandler).toEqual([undefined]);
  });
});
