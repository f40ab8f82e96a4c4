import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { metrics, resources } from '@opentelemetry/sdk-node';

/**
 * Duration histograms kept by lib and read by the Prometheus exporter as a
 * metric producer of its own, in the SDK's explicit-bucket form (the same
 * names, labels, buckets and text). The SDK has no bound instruments: it
 * sorts and serializes the attribute set of every record to find its
 * series (1.4 µs a record). Here a series bound once (`series`) records by
 * a bucket search and four additions; `record` with attributes finds the
 * series as the SDK does.
 */
export interface DurationSeries {
  record(ms: number): void;
}

export interface DurationHistogram {
  /** Records one duration under `attributes`. */
  record(ms: number, attributes: Attributes): void;
  /** The series of one attribute set, for a caller that records under it again and again. */
  series(attributes: Attributes): DurationSeries;
}

/** The scope the SDK's meter of the same name gives its instruments (`otel_scope_name`). */
const SCOPE = { name: 'gateway' };
/** Series are cumulative from the process's start, as the SDK's are for Prometheus. */
const STARTED: HrTime = hrTime();

interface Accumulation {
  readonly attributes: Attributes;
  readonly counts: number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

/** The SDK's series identity: the attribute set, whatever the order of its keys. */
function attributesKey(attributes: Attributes): string {
  return JSON.stringify(
    Object.keys(attributes)
      .sort()
      .map((key) => [key, attributes[key]]),
  );
}

/** The first bucket whose upper bound is at least `value` (the last, +Inf, when none is). */
function bucketOf(boundaries: readonly number[], value: number): number {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((boundaries[middle] ?? Infinity) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

class Histogram implements DurationHistogram {
  private readonly accumulations = new Map<string, Accumulation>();

  constructor(
    private readonly descriptor: metrics.MetricDescriptor,
    private readonly boundaries: readonly number[],
  ) {}

  record(ms: number, attributes: Attributes): void {
    add(this.accumulationOf(attributes), this.boundaries, ms);
  }

  series(attributes: Attributes): DurationSeries {
    const accumulation = this.accumulationOf(attributes);
    return { record: (ms) => add(accumulation, this.boundaries, ms) };
  }

  metricData(now: HrTime): metrics.HistogramMetricData | undefined {
    if (this.accumulations.size === 0) return undefined;
    const dataPoints = [...this.accumulations.values()].map(({ attributes, counts, sum, count, min, max }) => ({
      attributes,
      startTime: STARTED,
      endTime: now,
      value: { buckets: { boundaries: [...this.boundaries], counts: [...counts] }, sum, count, min, max },
    }));
    return { descriptor: this.descriptor, aggregationTemporality: metrics.AggregationTemporality.CUMULATIVE, dataPointType: metrics.DataPointType.HISTOGRAM, dataPoints };
  }

  private accumulationOf(attributes: Attributes): Accumulation {
    const key = attributesKey(attributes);
    const known = this.accumulations.get(key);
    if (known) return known;
    const created: Accumulation = { attributes: { ...attributes }, counts: new Array<number>(this.boundaries.length + 1).fill(0), sum: 0, count: 0, min: Infinity, max: -Infinity };
    this.accumulations.set(key, created);
    return created;
  }
}

/** As the SDK's histogram: NaN and negative values are not recorded. */
function add(accumulation: Accumulation, boundaries: readonly number[], value: number): void {
  if (!(value >= 0)) return;
  accumulation.count += 1;
  accumulation.sum += value;
  if (value < accumulation.min) accumulation.min = value;
  if (value > accumulation.max) accumulation.max = value;
  const bucket = bucketOf(boundaries, value);
  accumulation.counts[bucket] = (accumulation.counts[bucket] ?? 0) + 1;
}

const histograms = new Map<string, Histogram>();

/** A histogram of durations in milliseconds on these bucket bounds; asked for again by name, the same one. */
export function libDurationHistogram(name: string, description: string, boundaries: readonly number[]): DurationHistogram {
  const known = histograms.get(name);
  if (known) return known;
  const created = new Histogram({ name, description, unit: 'ms', valueType: ValueType.DOUBLE }, boundaries);
  histograms.set(name, created);
  return created;
}

/** What the Prometheus exporter reads besides the SDK's own instruments. */
export const histogramProducer: metrics.MetricProducer = {
  collect: async () => {
    const now = hrTime();
    const data = [...histograms.values()].flatMap((histogram) => histogram.metricData(now) ?? []);
    return { resourceMetrics: { resource: resources.emptyResource(), scopeMetrics: data.length === 0 ? [] : [{ scope: SCOPE, metrics: data }] }, errors: [] };
  },
};
