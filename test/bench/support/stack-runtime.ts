import { total, type Sample } from '../../support/prometheus';

/**
 * What the runtimes of one kind of the stack's processes (edge's replicas
 * together, or the ledger) did over a run, from the series every process
 * serves (services/lib/src/runtime-metrics.ts): how busy their event loops
 * were, and how long their garbage collections held them. A p99 is often one
 * of these pauses in one of the processes a request passes through
 * (docs/performance.md, "What decides the ladder").
 */
export interface RuntimeReading {
  gcMs: number;
  collections: number;
  /** Collections that held the loop longer than LONG_PAUSE_MS. */
  longCollections: number;
  /** Each process's event loop utilization since its previous scrape (0 to 1). */
  busy: number[];
}

export interface RuntimeOverRun {
  /** The processes' mean event loop utilization over the run, 0 to 1. */
  busy: number;
  gcMsPerRequest: number;
  longCollections: number;
}

/** A histogram bound of lib's duration buckets (services/lib/src/metrics.ts). */
export const LONG_PAUSE_MS = 10;

export function emptyRuntimeReading(): RuntimeReading {
  return { gcMs: 0, collections: 0, longCollections: 0, busy: [] };
}

/** Adds one process's scrape to `reading`. The utilization it reads covers the time since the previous scrape. */
export function addRuntime(reading: RuntimeReading, samples: Sample[]): void {
  const collections = total(samples, 'nodejs_gc_duration_count');
  reading.gcMs += total(samples, 'nodejs_gc_duration_sum');
  reading.collections += collections;
  reading.longCollections += collections - total(samples, 'nodejs_gc_duration_bucket', { le: String(LONG_PAUSE_MS) });
  reading.busy.push(total(samples, 'nodejs_eventloop_utilization'));
}

/** Between two readings: the utilization is the later one's (its window began at the earlier scrape). */
export function runtimeOver(before: RuntimeReading, after: RuntimeReading, requests: number): RuntimeOverRun {
  return {
    busy: after.busy.length > 0 ? after.busy.reduce((sum, value) => sum + value, 0) / after.busy.length : Number.NaN,
    gcMsPerRequest: requests > 0 ? (after.gcMs - before.gcMs) / requests : Number.NaN,
    longCollections: after.longCollections - before.longCollections,
  };
}
