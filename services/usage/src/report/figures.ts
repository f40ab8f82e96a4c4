/** Exact nearest-rank percentiles of latencies in milliseconds. */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** What a set of requests adds up to. Counts and money are bigint: exact at any size. */
export interface Figures {
  requests: bigint;
  /** Requests whose trace has an error class. */
  errors: bigint;
  /** Error class -> requests, for the classes that occurred; sums to `errors`. */
  failures: Map<string, bigint>;
  /** Null when there is no request. */
  latencyMs: Percentiles | null;
  /** Sum of the priced requests' costs. */
  costMicros: bigint;
  /** Requests with no price (cost_micros null): not in costMicros, and not free. */
  unpricedRequests: bigint;
}

export function emptyFigures(): Figures {
  return { requests: 0n, errors: 0n, failures: new Map(), latencyMs: null, costMicros: 0n, unpricedRequests: 0n };
}

/** Postgres bigint arrives as a string (pg) or a number (PGlite); BigInt() of either is exact for a count. */
export type DatabaseInteger = string | number;
