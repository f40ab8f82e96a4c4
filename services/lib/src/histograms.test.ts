import { metrics } from '@opentelemetry/sdk-node';
import { histogramProducer, libDurationHistogram } from './histograms';

/** The data points of one histogram, as the Prometheus exporter reads them. */
async function pointsOf(name: string) {
  const { resourceMetrics } = await histogramProducer.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((candidate) => candidate.descriptor.name === name);
  const points = metric?.dataPointType === metrics.DataPointType.HISTOGRAM ? metric.dataPoints.map(({ attributes, value }) => ({ attributes, value })) : [];
  return { scopes: resourceMetrics.scopeMetrics.map(({ scope }) => scope.name), metric, points };
}

describe("lib's duration histograms", () => {
  const BOUNDS = [1, 5, 10];

  it('count each value in the first bucket whose bound is at least the value, as the SDK does, and drop NaN and negatives', async () => {
    const histogram = libDurationHistogram('test.buckets', 'Buckets.', BOUNDS);
    for (const value of [0, 1, 1.5, 5, 10, 11, -1, Number.NaN]) histogram.record(value, { outcome: 'ok' });
    const { scopes, metric, points } = await pointsOf('test.buckets');
    expect(scopes).toEqual(['gateway']);
    expect(metric?.descriptor).toMatchObject({ name: 'test.buckets', description: 'Buckets.', unit: 'ms' });
    expect(points).toEqual([
      { attributes: { outcome: 'ok' }, value: { buckets: { boundaries: BOUNDS, counts: [2, 2, 1, 1] }, sum: 28.5, count: 6, min: 0, max: 11 } },
    ]);
  });

  it('keep one series per attribute set, whatever the order of its keys, whether bound or not', async () => {
    const histogram = libDurationHistogram('test.series', 'Series.', BOUNDS);
    const bound = histogram.series({ method: 'Route', status: 0 });
    bound.record(2);
    histogram.record(3, { status: 0, method: 'Route' });
    histogram.record(4, { method: 'Route', status: 14 });
    const { points } = await pointsOf('test.series');
    expect(points.map(({ attributes, value }) => ({ attributes, count: value.count, sum: value.sum }))).toEqual([
      { attributes: { method: 'Route', status: 0 }, count: 2, sum: 5 },
      { attributes: { method: 'Route', status: 14 }, count: 1, sum: 4 },
    ]);
  });

  it('are the same histogram when asked for again by name, and absent from a scrape until something is recorded', async () => {
    const first = libDurationHistogram('test.again', 'Again.', BOUNDS);
    expect(libDurationHistogram('test.again', 'Again.', BOUNDS)).toBe(first);
    expect((await pointsOf('test.again')).metric).toBeUndefined();
    first.record(1, {});
    expect((await pointsOf('test.again')).points).toHaveLength(1);
  });
});
