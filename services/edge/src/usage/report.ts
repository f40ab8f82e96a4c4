import type { PromiseClient } from '@gateway/lib/grpc';
import { formatUsd, parseMicros } from '@gateway/lib/money';
import {
  UsageGroupBy,
  type GetUsageResponse,
  type UsageFigures,
  type UsageServiceService,
} from '@gateway/proto/gen/gateway/usage/v1/usage';
import { z } from 'zod';
import { parseInput } from '../http/validation';
import { present } from '../mappers';

export type UsageClient = PromiseClient<typeof UsageServiceService>;

/** SPEC 4.3's windows and groupings, as the query string writes them. */
const RANGES = ['7d', '14d', '30d', '90d'] as const;
const GROUP_BYS = ['day', 'model', 'key', 'agent'] as const;
type GroupByName = (typeof GROUP_BYS)[number];

const GROUP_BY_VALUES: Record<GroupByName, UsageGroupBy> = {
  day: UsageGroupBy.USAGE_GROUP_BY_DAY,
  model: UsageGroupBy.USAGE_GROUP_BY_MODEL,
  key: UsageGroupBy.USAGE_GROUP_BY_KEY,
  agent: UsageGroupBy.USAGE_GROUP_BY_AGENT,
};
const GROUP_BY_NAMES = new Map(Object.entries(GROUP_BY_VALUES).map(([name, value]) => [value, name]));

/** One of the allowed values, given at most once (a repeated parameter arrives as an array). */
function oneOf<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z
    .enum(values, { error: (issue) => (Array.isArray(issue.input) ? `must be given once, as one of: ${values.join(', ')}` : undefined) })
    .optional();
}

/** Absent parameters take the usage service's defaults (30d, day), which the body then names. */
const usageQuery = z.strictObject({ range: oneOf(RANGES), group_by: oneOf(GROUP_BYS) });

export interface LatencyJson {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface UsageFiguresJson {
  requests: number;
  errors: number;
  failures: Record<string, number>;
  latency_ms: LatencyJson;
  cost_usd: string;
  unpriced_requests: number;
}

export interface UsageGroupJson extends UsageFiguresJson {
  key: string | null;
}

/** The body of both usage routes (DESIGN 4). */
export interface UsageJson {
  range: string;
  group_by: string;
  from: string;
  to: string;
  truncated: boolean;
  totals: UsageFiguresJson;
  groups: UsageGroupJson[];
}

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
  const { range, group_by: groupBy } = parseInput(usageQuery, query, 'query');
  const report = await usage.getUsage({
    organizationId,
    rangeDays: range === undefined ? 0 : Number.parseInt(range, 10),
    groupBy: groupBy === undefined ? UsageGroupBy.USAGE_GROUP_BY_UNSPECIFIED : GROUP_BY_VALUES[groupBy],
  });
  return usageJson(report);
}
