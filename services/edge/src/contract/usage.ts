import { z } from 'zod';

/** docs/api.md#usage's windows and groupings, as the query string writes them. */
export const USAGE_RANGES = ['7d', '14d', '30d', '90d'] as const;
export const USAGE_GROUP_BYS = ['day', 'model', 'key', 'agent'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];
export type UsageGroupBy = (typeof USAGE_GROUP_BYS)[number];

/** One of the allowed values, given at most once (a repeated parameter arrives as an array). */
function oneOf<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z
    .enum(values, { error: (issue) => (Array.isArray(issue.input) ? `must be given once, as one of: ${values.join(', ')}` : undefined) })
    .optional();
}

/** Absent parameters take the usage service's defaults (30d, day), which the body then names. */
export const usageQuerySchema = z.strictObject({ range: oneOf(USAGE_RANGES), group_by: oneOf(USAGE_GROUP_BYS) });

const latencySchema = z.object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() });
export type LatencyJson = z.output<typeof latencySchema>;

export const usageFiguresSchema = z.object({
  requests: z.number().int(),
  errors: z.number().int(),
  /** Error class → count; absent classes are left out. */
  failures: z.record(z.string(), z.number().int()),
  latency_ms: latencySchema,
  /** Decimal USD with 6 places, summed in integer micro-dollars. */
  cost_usd: z.string(),
  unpriced_requests: z.number().int(),
});
export type UsageFiguresJson = z.output<typeof usageFiguresSchema>;

export const usageGroupSchema = usageFiguresSchema.extend({ key: z.string().nullable() });
export type UsageGroupJson = z.output<typeof usageGroupSchema>;

/** The body of both usage routes (docs/api.md). */
export const usageReportSchema = z.object({
  range: z.string(),
  group_by: z.string(),
  from: z.string(),
  to: z.string(),
  /** True: the scan cap was reached and the figures are a floor. */
  truncated: z.boolean(),
  totals: usageFiguresSchema,
  groups: z.array(usageGroupSchema),
});
export type UsageJson = z.output<typeof usageReportSchema>;
