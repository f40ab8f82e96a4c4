import { cpus } from 'node:os';

/** Percentiles of a set of timings (ms), nearest rank. */
export interface Summary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = Float64Array.from(values).sort();
  const at = (quantile: number) => (sorted.length === 0 ? Number.NaN : (sorted[Math.max(0, Math.ceil(quantile * sorted.length) - 1)] ?? Number.NaN));
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
}

export function median(values: readonly number[]): number {
  return summarize(values).p50;
}

/** A duration in ms for a table cell: two decimals below 10 ms, one above. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** The machine the figures were taken on, for the top of every benchmark's output. */
export function machineLine(): string {
  const cores = cpus();
  return `Node ${process.version}, ${cores.length} × ${cores[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString()}`;
}
