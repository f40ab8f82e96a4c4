import type { Redis } from 'ioredis';
import { scrape, total, type Sample } from '../../support/prometheus';
import { takeRedisStalls, type RedisStalls } from './redis-stalls';
import { addRuntime, emptyRuntimeReading, runtimeOver, type RuntimeOverRun, type RuntimeReading } from './stack-runtime';

/**
 * Where a request's time goes inside the stack, read from the stack's own
 * Prometheus metrics rather than measured from outside: edge's whole
 * request, its provider call and its record's round trip, the ledger's
 * handling of a record, and the requests that waited on auth; and what
 * edge's and the ledger's runtimes and the stack's Redis (its slow fsyncs)
 * did meanwhile. Two scrapes of every edge replica and ledger around a run
 * give the means over that run.
 */
export interface PhaseMeans {
  /** edge's chat-completions request, first middleware to the response's close. */
  requestMs: number;
  providerMs: number;
  /** The record's round trip as edge sees it: `StreamRecords` calls, client side. */
  recordMs: number;
  /** The ledger's handling of a record: `StreamRecords` calls, server side (its Redis script included). */
  ledgerRecordMs: number;
  /** edge's requests whose credential waited on auth (not answered from the principal cache): their mean. */
  authVerifiedMs: number;
  /** And how many there were. */
  authVerifiedRequests: number;
  /** edge's `Authenticate` calls to auth (a lapsed entry's, or a background refresh): their mean, client side. */
  authenticateMs: number;
  /** edge's `Lease` calls (a call that did not fit its lease, a renewal, a give-back): their mean, client side. */
  leaseMs: number;
  /** The ledger's handling of those calls, server side (a reclaim's wait included). */
  ledgerLeaseMs: number;
  /** And how many a request. */
  leasesPerRequest: number;
  runtime: Record<ScrapedKind, RuntimeOverRun>;
  redisStalls: RedisStalls;
}

export type ScrapedKind = 'edge' | 'ledger';
export interface ScrapedProcess {
  kind: ScrapedKind;
  metricsPort: number;
}

type Phase = Exclude<keyof PhaseMeans, 'authVerifiedRequests' | 'leasesPerRequest' | 'runtime' | 'redisStalls'>;
/** Each phase's histogram sum (ms) and count over every process scraped, and each kind's runtime. */
export interface PhaseTotals {
  phases: Record<Phase, { sum: number; count: number }>;
  runtime: Record<ScrapedKind, RuntimeReading>;
  /** Since the previous reading. */
  redisStalls: RedisStalls;
}

const SERIES: Record<Phase, { metric: string; labels: Record<string, string> }> = {
  requestMs: { metric: 'edge_http_duration', labels: { http_route: '/api/gateway/v1/chat/completions' } },
  providerMs: { metric: 'edge_provider_duration', labels: { stream: 'false' } },
  recordMs: { metric: 'rpc_client_duration', labels: { rpc_method: 'StreamRecords' } },
  ledgerRecordMs: { metric: 'rpc_server_duration', labels: { rpc_method: 'StreamRecords' } },
  authVerifiedMs: { metric: 'edge_http_duration', labels: { http_route: '/api/gateway/v1/chat/completions', verified_by: 'auth' } },
  authenticateMs: { metric: 'rpc_client_duration', labels: { rpc_method: 'Authenticate' } },
  leaseMs: { metric: 'rpc_client_duration', labels: { rpc_method: 'Lease' } },
  ledgerLeaseMs: { metric: 'rpc_server_duration', labels: { rpc_method: 'Lease' } },
};
const PHASES = Object.keys(SERIES) as Phase[];

/** Adds one scrape's histogram sums and counts of every phase to `totals`. */
function addScrape(totals: PhaseTotals['phases'], samples: Sample[]): void {
  for (const phase of PHASES) {
    const { metric, labels } = SERIES[phase];
    totals[phase].sum += total(samples, `${metric}_sum`, labels);
    totals[phase].count += total(samples, `${metric}_count`, labels);
  }
}

/** The totals now, over these processes and the stack's Redis. */
export async function readPhases(processes: readonly ScrapedProcess[], redis: Redis): Promise<PhaseTotals> {
  const totals: PhaseTotals = {
    phases: Object.fromEntries(PHASES.map((phase) => [phase, { sum: 0, count: 0 }])) as PhaseTotals['phases'],
    runtime: { edge: emptyRuntimeReading(), ledger: emptyRuntimeReading() },
    redisStalls: await takeRedisStalls(redis),
  };
  for (const { kind, metricsPort } of processes) {
    const { samples } = await scrape(metricsPort);
    addScrape(totals.phases, samples);
    addRuntime(totals.runtime[kind], samples);
  }
  return totals;
}

/** Each phase's mean between two readings (NaN for a phase with no calls in between), and the runtimes' figures per request. */
export function phaseMeans(before: PhaseTotals, after: PhaseTotals): PhaseMeans {
  const calls = (phase: Phase) => after.phases[phase].count - before.phases[phase].count;
  const mean = (phase: Phase) => (calls(phase) > 0 ? (after.phases[phase].sum - before.phases[phase].sum) / calls(phase) : Number.NaN);
  const requests = calls('requestMs');
  return {
    requestMs: mean('requestMs'),
    providerMs: mean('providerMs'),
    recordMs: mean('recordMs'),
    ledgerRecordMs: mean('ledgerRecordMs'),
    authVerifiedMs: mean('authVerifiedMs'),
    authVerifiedRequests: calls('authVerifiedMs'),
    authenticateMs: mean('authenticateMs'),
    leaseMs: mean('leaseMs'),
    ledgerLeaseMs: mean('ledgerLeaseMs'),
    leasesPerRequest: requests > 0 ? calls('leaseMs') / requests : Number.NaN,
    runtime: {
      edge: runtimeOver(before.runtime.edge, after.runtime.edge, requests),
      ledger: runtimeOver(before.runtime.ledger, after.runtime.ledger, requests),
    },
    redisStalls: after.redisStalls,
  };
}
