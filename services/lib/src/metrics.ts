import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { metrics, type Meter } from '@opentelemetry/api';
import { libDurationHistogram, type DurationHistogram } from './histograms';

export type { DurationHistogram, DurationSeries } from './histograms';

/**
 * Prometheus metrics (docs/decisions.md#metrics). Instruments come from the OpenTelemetry
 * meter that startTelemetry registers; each process serves them in the
 * Prometheus text format on its own port (METRICS_PORT), apart from the
 * service's own listener, so a scrape never queues behind traffic and the
 * port is never exposed through the public ingress.
 *
 * Labels are bounded sets only (an RPC method, a status, an error class, a
 * route template): never an id, a path or anything a caller chose.
 */
export function gatewayMeter(): Meter {
  return metrics.getMeter('gateway');
}

/**
 * Bucket bounds for durations in milliseconds. The SDK's default starts at
 * 5 ms, which puts every internal hop in the first bucket; these resolve the
 * sub-millisecond hops as well as a slow provider.
 */
const DURATION_BUCKETS_MS = [0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000];

/** A histogram of durations in milliseconds, on the buckets above (lib's own: histograms.ts says why). */
export function durationHistogram(name: string, description: string): DurationHistogram {
  return libDurationHistogram(name, description, DURATION_BUCKETS_MS);
}

/** What serves the current metrics: the Prometheus exporter's request handler. */
export type MetricsHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface MetricsServer {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/** `GET /metrics` on a port of its own; anything else is a 404. */
export function serveMetrics(handler: MetricsHandler, { host, port }: { host: string; port: number }): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (request.method === 'GET' && path === '/metrics') {
      handler(request, response);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address !== null ? address.port : port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
