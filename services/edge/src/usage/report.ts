import type { PromiseClient } from '@gateway/lib/grpc';
import { formatUsd, parseMicros } from '@gateway/lib/money';
import {
  UsageGroupBy,
  type GetUsageResponse,
  type UsageFigures,
  type UsageServiceService,
} from '@gateway/proto/gen/gateway/usage/v1/usage';
import { usageQuerySchema, type LatencyJson, type UsageFiguresJson, type UsageGroupBy as GroupByName, type UsageJson } from '../contract';
import { parseInput } from '../http/validation';
import { present } from '../mappers';

export type UsageClient = PromiseClient<typeof UsageServiceService>;

const GROUP_BY_VALUES: Record<GroupByName, UsageGroupBy> = {
  day: UsageGroupBy.USAGE_GROUP_BY_DAY,
  model: UsageGroupBy.USAGE_GROUP_BY_MODEL,
  key: UsageGroupBy.USAGE_GROUP_BY_KEY,
  agent: UsageGroupBy.USAGE_GROUP_BY_AGENT,
};
const GROUP_BY_NAMES = new Map(Object.entries(GROUP_BY_VALUES).map(([name, value]) => [value, name]));

const NO_LATENCY: LatencyJson = { p50: null, p95: null, p99: null };

/** Counts travel as int64 strings; a count of requests is far inside a JSON number's exact range. */
function figuresJson(figures: UsageFigures): UsageFiguresJson {
  return {
    requests: Number(figures.requests),
    errors: Number(figures.errors),
    failures: Object.fromEntries(Object.entries(figures.failures).map(([errorClass, count]) => [errorClass, Number(count)])),
    latency_ms: figures.latencyMs ? { ...figures.latencyMs } : NO_LATENCY,
    cost_usd: formatUsd(parseMicros(figures.costMicros)),
    unpriced_requests: Number(figures.unpricedRequests),
  };
}

function usageJson(report: GetUsageResponse): UsageJson {
  return {
    range: `${report.rangeDays}d`,
    group_by: present(GROUP_BY_NAMES.get(report.groupBy), 'a known group_by', 'usage'),
    from: present(report.from, 'from', 'usage').toISOString(),
    to: present(report.to, 'to', 'usage').toISOString(),
    truncated: report.truncated,
    totals: figuresJson(present(report.totals, 'totals', 'usage')),
    groups: report.groups.map((group) => ({ key: group.key ?? null, ...figuresJson(present(group.figures, 'figures', 'usage')) })),
  };
}

/**
 * The one path of both usage routes: the query checked, one GetUsage for the
 * organization the caller was authorized for, one body. The API and the
 * Console therefore answer the same data with the same bytes.
 */
export async function usageReport(usage: UsageClient, organizationId: string, query: unknown): Promise<UsageJson> {
  const { range, group_by: groupBy } = parseInput(usageQuerySchema, query, 'query');
  const report = await usage.getUsage({
    organizationId,
    rangeDays: range === undefined ? 0 : Number.parseInt(range, 10),
    groupBy: groupBy === undefined ? UsageGroupBy.USAGE_GROUP_BY_UNSPECIFIED : GROUP_BY_VALUES[groupBy],
  });
  return usageJson(report);
}
