import { getNumberFromEnv, W3CTraceContextPropagator } from '@opentelemetry/core';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, BatchSpanProcessor, NoopSpanProcessor, ParentBasedSampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setCallSpansRecordable } from './grpc/call-spans';
import { histogramProducer } from './histograms';
import { serveMetrics, type MetricsServer } from './metrics';
import { observeRuntime } from './runtime-metrics';

/**
 * Starts OpenTelemetry. Must run before the modules that make instruments are
 * loaded (a meter asked for before the SDK is registered stays a no-op),
 * which is why every main.ts calls it before importing its server. Nothing
 * is patched: gRPC calls are traced by lib's own client and server
 * (grpc/call-spans.ts), incoming HTTP requests by lib's own server span
 * (http-spans.ts). Every request gets a trace, exported or not: the trace id is the
 * request id, and every log line carries it. Traces go to the OTLP endpoint
 * of the standard OTEL_EXPORTER_OTLP_* variables when one is set. Metrics
 * are read by Prometheus from the port given to `serveMetrics`.
 */
export interface TelemetryOptions {
  serviceName: string;
  /** Extra processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
}

/**
 * Spans per OTLP export, where the SDK sends 512: a batch is serialized on the
 * event loop, in the `span.end()` that fills it, and 512 spans (about half a
 * megabyte of JSON) held that loop for milliseconds every second or two, long
 * enough to be the stack's p99 (docs/performance.md, "With every trace
 * exported, as deployed"). OTEL_BSP_MAX_EXPORT_BATCH_SIZE still sets it.
 */
const SPANS_PER_EXPORT = 64;

export interface Telemetry {
  /** Starts serving `GET /metrics` (port 0: any free port); shutdown stops it. */
  serveMetrics(listen: { host: string; port: number }): Promise<MetricsServer>;
  shutdown(): Promise<void>;
}

export function startTelemetry({ serviceName, spanProcessors = [] }: TelemetryOptions): Telemetry {
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  // With nothing to export spans to, recording them would only cost time on
  // every call: they stay non-recording, which still gives every request its
  // trace id (the request id) and still propagates it; gRPC calls then make no
  // spans of their own (grpc/call-spans.ts). Otherwise the standard
  // OTEL_TRACES_SAMPLER variables decide (default: record every trace).
  const recording = exporting || spanProcessors.length > 0 || process.env.OTEL_TRACES_SAMPLER !== undefined;
  // Logs leave through stdout; only traces use OTLP.
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  // Served on the service's metrics port rather than the exporter's own server, whose port is fixed.
  // lib's duration histograms are read beside the SDK's instruments.
  const prometheus = new PrometheusExporter({ preventServerStart: true, metricProducers: [histogramProducer] });
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations: [],
    // Without a processor the SDK registers no tracer at all and every trace id is zero.
    spanProcessors: [
      exporting
        ? new BatchSpanProcessor(new OTLPTraceExporter(), { maxExportBatchSize: getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? SPANS_PER_EXPORT })
        : new NoopSpanProcessor(),
      ...spanProcessors,
    ],
    // W3C trace context, carried in gRPC metadata by lib's client and server. An incoming HTTP
    // request is never extracted from (http-spans.ts), so a client cannot choose its request id.
    textMapPropagator: new W3CTraceContextPropagator(),
    metricReaders: [prometheus],
    ...(recording ? {} : { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) }),
  });
  sdk.start();
  setCallSpansRecordable(recording);
  const stopObservingRuntime = observeRuntime();
  const servers: MetricsServer[] = [];
  return {
    serveMetrics: async (listen) => {
      const server = await serveMetrics((request, response) => prometheus.getMetricsRequestHandler(request, response), listen);
      servers.push(server);
      return server;
    },
    shutdown: async () => {
      await Promise.all(servers.map((server) => server.close()));
      stopObservingRuntime();
      await sdk.shutdown();
    },
  };
}
