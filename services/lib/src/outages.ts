import type { Counter } from '@opentelemetry/api';
import type { Logger } from './logging';
import { gatewayMeter } from './metrics';

/**
 * A dependency's outages as an operator wants to read them: one line when it
 * becomes unavailable, one when it is back with how long it was away and how
 * many failures that cost, and nothing in between however many requests or
 * reconnect attempts fail meanwhile. Each failure is counted instead, in
 * `dependency_failures_total{dependency}`, so the rate of an outage shows on
 * a dashboard without filling the log (with a backend down at 100 req/s a
 * warning per request wrote megabytes a minute).
 *
 * Used for every dependency a process calls: the gRPC backends (lib's
 * client) and Redis connections.
 */
export interface OutageReporter {
  /** One failed call or connection attempt: the first of an outage is logged, every one is counted. */
  failed(error: unknown): void;
  /** A call or connection that worked: ends an outage, if there was one. */
  succeeded(): void;
  /** Whether the dependency is in an outage now. */
  isDown(): boolean;
}

export type OutageLogger = Pick<Logger, 'warn' | 'info'>;

let failures: Counter | undefined;

/** Created on first use: the meter exists only once telemetry has started. */
function failureCounter(): Counter {
  failures ??= gatewayMeter().createCounter('dependency.failures', {
    description: 'Calls to a dependency (a gRPC backend, Redis) that failed because it was unavailable, and failed connection attempts.',
  });
  return failures;
}

/** The error's message only: a stack trace says nothing about an outage that its first line does not. */
function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/**
 * @param dependency the name in the log and the metric's label (a service name, `redis`): a bounded set.
 * @param fields extra fields for both log lines (which connection of several).
 */
export function outageReporter(logger: OutageLogger, dependency: string, fields: Record<string, string> = {}): OutageReporter {
  const attributes = { dependency };
  let downSince: number | undefined;
  let failedDuringOutage = 0;
  return {
    failed(error) {
      failureCounter().add(1, attributes);
      failedDuringOutage += 1;
      if (downSince !== undefined) return;
      downSince = Date.now();
      logger.warn({ dependency, ...fields, reason: reasonOf(error) }, 'dependency unavailable');
    },
    succeeded() {
      if (downSince === undefined) return;
      const downSeconds = (Date.now() - downSince) / 1000;
      logger.info({ dependency, ...fields, down_seconds: downSeconds, failures: failedDuringOutage }, 'dependency available again');
      downSince = undefined;
      failedDuringOutage = 0;
    },
    isDown: () => downSince !== undefined,
  };
}
