import type { Context, TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Starts OpenTelemetry. Must run before the modules it instruments (grpc-js,
 * http) are loaded, which is why every main.ts calls it before importing its
 * server. Spans are always real, exported or not: the trace id is the
 * request id, and every log line carries it. Traces go to the OTLP endpoint
 * of the standard OTEL_EXPORTER_OTLP_* variables when one is set.
 */
export interface TelemetryOptions {
  serviceName: string;
  /**
   * `continue` (backends): join the trace the caller propagated.
   * `new-trace` (edge, the public door): every request starts its own trace,
   * so a client cannot choose the request id; edge links the caller's context.
   */
  incomingContext?: 'continue' | 'new-trace';
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

/** Injects W3C trace context into outgoing calls but never adopts an incoming one. */
class InjectOnlyTraceContextPropagator extends W3CTraceContextPropagator {
  override extract(context: Context, _carrier: unknown, _getter: TextMapGetter): Context {
    return context;
  }
}

export function startTelemetry({ serviceName, incomingContext = 'continue', spanProcessors = [] }: TelemetryOptions): Telemetry {
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  // Metrics and logs leave through Prometheus and stdout; only traces use OTLP.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations: [new GrpcInstrumentation(), new HttpInstrumentation()],
    // Without a processor the SDK registers no tracer at all and every trace id is zero.
    spanProcessors: [exporting ? new BatchSpanProcessor(new OTLPTraceExporter()) : new NoopSpanProcessor(), ...spanProcessors],
    ...(incomingContext === 'new-trace' ? { textMapPropagator: new InjectOnlyTraceContextPropagator() } : {}),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
