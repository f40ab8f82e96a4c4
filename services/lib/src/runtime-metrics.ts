import { constants, performance, PerformanceObserver, type EventLoopUtilization, type PerformanceEntry } from 'node:perf_hooks';
import { durationHistogram, gatewayMeter, type DurationSeries } from './metrics';

/**
 * What the process's own runtime makes a request wait for: how busy its one
 * event loop is, and how long its garbage collections hold it. A request's
 * tail latency is often a pause in one of the processes it passes through (a
 * mark-compact of 20 to 35 ms, measured: docs/performance.md), which no
 * request-level series shows.
 *
 * Neither needs a timer: the loop's utilization is read from libuv's own
 * idle accounting when Prometheus scrapes, and collections are reported by
 * V8 as they end. (Node's event loop delay monitor would sample with a timer
 * every few milliseconds, waking every idle process of the cluster for it.)
 */
export function observeRuntime(): () => void {
  const meter = gatewayMeter();
  let previous: EventLoopUtilization = performance.eventLoopUtilization();
  meter
    .createObservableGauge('nodejs.eventloop.utilization', {
      description: 'Share of the time since the previous scrape (by any scraper) that the event loop was running code rather than waiting, 0 to 1.',
    })
    .addCallback((result) => {
      const now = performance.eventLoopUtilization();
      result.observe(performance.eventLoopUtilization(now, previous).utilization);
      previous = now;
    });

  const pauses = durationHistogram('nodejs.gc.duration', 'Garbage collections, each a pause of the event loop, by kind (major: mark-compact; minor: scavenge).');
  const byKind = new Map<number, DurationSeries>([
    [constants.NODE_PERFORMANCE_GC_MAJOR, pauses.series({ gc_type: 'major' })],
    [constants.NODE_PERFORMANCE_GC_MINOR, pauses.series({ gc_type: 'minor' })],
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL, pauses.series({ gc_type: 'incremental' })],
    [constants.NODE_PERFORMANCE_GC_WEAKCB, pauses.series({ gc_type: 'weakcb' })],
  ]);
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) byKind.get(gcKindOf(entry))?.record(entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

/** A gc entry's kind is in its `detail` (Node's NodeGCPerformanceDetail), which the entry's type does not declare. */
function gcKindOf(entry: PerformanceEntry): number {
  if (!('detail' in entry)) return 0;
  const { detail } = entry;
  return typeof detail === 'object' && detail !== null && 'kind' in detail && typeof detail.kind === 'number' ? detail.kind : 0;
}
