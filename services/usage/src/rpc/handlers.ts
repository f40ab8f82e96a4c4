import type { CallContext, UnaryHandlers } from '@gateway/lib/grpc';
import { parseInput } from '@gateway/lib/validation';
import {
  UsageGroupBy,
  type GetUsageResponse,
  type UsageFigures,
  type UsageServiceService,
} from '@gateway/proto/gen/gateway/usage/v1/usage';
import { z } from 'zod';
import type { UsageDeps } from '../deps';
import type { Figures } from '../report/figures';
import type { Grouping } from '../report/query';
import { readUsageReport, type UsageReport } from '../report/report';
import { DEFAULT_RANGE_DAYS, RANGE_DAYS, type RangeDays } from '../report/window';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Proto enum <-> grouping; UNSPECIFIED is the default, by day. */
const GROUPINGS: ReadonlyMap<UsageGroupBy, Grouping> = new Map([
  [UsageGroupBy.USAGE_GROUP_BY_UNSPECIFIED, 'day'],
  [UsageGroupBy.USAGE_GROUP_BY_DAY, 'day'],
  [UsageGroupBy.USAGE_GROUP_BY_MODEL, 'model'],
  [UsageGroupBy.USAGE_GROUP_BY_KEY, 'key'],
  [UsageGroupBy.USAGE_GROUP_BY_AGENT, 'agent'],
]);
const GROUP_BY_VALUES: Record<Grouping, UsageGroupBy> = {
  day: UsageGroupBy.USAGE_GROUP_BY_DAY,
  model: UsageGroupBy.USAGE_GROUP_BY_MODEL,
  key: UsageGroupBy.USAGE_GROUP_BY_KEY,
  agent: UsageGroupBy.USAGE_GROUP_BY_AGENT,
};

const isRangeDays = (days: number): days is RangeDays => (RANGE_DAYS as readonly number[]).includes(days);

const getUsageSchema = z.object({
  organizationId: z
    .string()
    .regex(UUID, 'must be a UUID')
    .transform((value) => value.toLowerCase()),
  rangeDays: z
    .number()
    .refine((days) => days === 0 || isRangeDays(days), `must be one of ${RANGE_DAYS.join(', ')}, or 0 for ${DEFAULT_RANGE_DAYS}`)
    .transform((days): RangeDays => (isRangeDays(days) ? days : DEFAULT_RANGE_DAYS)),
  groupBy: z
    .number()
    .refine((value) => GROUPINGS.has(value), `must be one of ${Object.keys(GROUP_BY_VALUES).join(', ')} (USAGE_GROUP_BY_*)`)
    .transform((value): Grouping => GROUPINGS.get(value) ?? 'day'),
});

/** Leaves the caller's deadline this long to receive the answer once the database has given up. */
const DEADLINE_MARGIN_MS = 100;

/** The statement timeout: the configured one, shortened to what the caller's deadline leaves. */
function timeoutWithin({ deadline }: CallContext, configuredMs: number): number {
  const remaining = (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now() - DEADLINE_MARGIN_MS;
  return Math.max(1, Math.floor(Math.min(configuredMs, remaining)));
}

function toFiguresMessage(figures: Figures): UsageFigures {
  const classes = [...figures.failures.keys()].sort();
  return {
    requests: figures.requests.toString(),
    errors: figures.errors.toString(),
    failures: Object.fromEntries(classes.map((name) => [name, String(figures.failures.get(name))])),
    latencyMs: figures.latencyMs ?? undefined,
    costMicros: figures.costMicros.toString(),
    unpricedRequests: figures.unpricedRequests.toString(),
  };
}

function toResponse(report: UsageReport): GetUsageResponse {
  return {
    rangeDays: report.rangeDays,
    groupBy: GROUP_BY_VALUES[report.grouping],
    from: report.from,
    to: report.to,
    truncated: report.truncated,
    totals: toFiguresMessage(report.totals),
    groups: report.groups.map((group) => ({ ...(group.key === null ? {} : { key: group.key }), figures: toFiguresMessage(group.figures) })),
  };
}

type UsageHandlers = UnaryHandlers<typeof UsageServiceService>;

export function usageHandlers(deps: UsageDeps): UsageHandlers {
  return {
    getUsage: async (request, context) => {
      const { organizationId, rangeDays, groupBy } = parseInput(getUsageSchema, request);
      const report = await readUsageReport(deps, { organizationId, rangeDays, grouping: groupBy }, timeoutWithin(context, deps.settings.queryTimeoutMs));
      return toResponse(report);
    },
  };
}
