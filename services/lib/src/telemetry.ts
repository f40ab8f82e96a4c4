import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Starts OpenTelemetry. Must run before the modules it instruments (grpc-js,
 * http) are loaded, which is why every main.ts calls it before importing its
 * server. Exporters come from the standard OTEL_* variables; with no OTLP
 * endpoint configured nothing is exported, but spans and W3C trace context
 * still flow, so the trace id (the request id) is the same in every service.
 */
export interface TelemetryOptions {
  serviceName: string;
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

export function startTelemetry({ serviceName, spanProcessors }: TelemetryOptions): Telemetry {
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!exporting) {
    process.env.OTEL_TRACES_EXPORTER ??= 'none';
    process.env.OTEL_METRICS_EXPORTER ??= 'none';
    process.env.OTEL_LOGS_EXPORTER ??= 'none';
  }
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations: [new GrpcInstrumentation(), new HttpInstrumentation()],
    ...(spanProcessors ? { spanProcessors } : {}),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
