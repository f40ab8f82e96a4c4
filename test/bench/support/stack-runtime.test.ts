import { parsePrometheusText } from '../../support/prometheus';
import { addRuntime, emptyRuntimeReading, runtimeOver } from './stack-runtime';

/** One process's scrape, as lib's runtime series print it. */
function scrape({ busy, minor, major }: { busy: number; minor: number[]; major: number[] }) {
  const kind = (type: string, pauses: number[]) => [
    `nodejs_gc_duration_count{gc_type="${type}",otel_scope_name="gateway"} ${pauses.length}`,
    `nodejs_gc_duration_sum{gc_type="${type}",otel_scope_name="gateway"} ${pauses.reduce((sum, pause) => sum + pause, 0)}`,
    `nodejs_gc_duration_bucket{gc_type="${type}",otel_scope_name="gateway",le="5"} ${pauses.filter((pause) => pause <= 5).length}`,
    `nodejs_gc_duration_bucket{gc_type="${type}",otel_scope_name="gateway",le="10"} ${pauses.filter((pause) => pause <= 10).length}`,
    `nodejs_gc_duration_bucket{gc_type="${type}",otel_scope_name="gateway",le="+Inf"} ${pauses.length}`,
  ];
  return parsePrometheusText(['# TYPE nodejs_eventloop_utilization gauge', `nodejs_eventloop_utilization{otel_scope_name="gateway"} ${busy}`, ...kind('minor', minor), ...kind('major', major), ''].join('\n'));
}

describe("the stack's runtimes over a run", () => {
  it("sums the replicas' collections, counts the long ones, and takes the utilization of the later scrape", () => {
    const before = emptyRuntimeReading();
    addRuntime(before, scrape({ busy: 0.9, minor: [1, 2], major: [] }));
    addRuntime(before, scrape({ busy: 0.8, minor: [1], major: [] }));
    const after = emptyRuntimeReading();
    addRuntime(after, scrape({ busy: 0.2, minor: [1, 2, 3, 4], major: [12] }));
    addRuntime(after, scrape({ busy: 0.3, minor: [1, 5], major: [30] }));
    // 1 000 requests in between: (3 + 4 + 12) + (5 + 30) ms of collections, two of them over 10 ms.
    expect(runtimeOver(before, after, 1000)).toEqual({ busy: 0.25, gcMsPerRequest: 0.054, longCollections: 2 });
  });

  it('gives no figure per request when no request was counted', () => {
    expect(runtimeOver(emptyRuntimeReading(), emptyRuntimeReading(), 0)).toEqual({ busy: Number.NaN, gcMsPerRequest: Number.NaN, longCollections: 0 });
  });
});
