import { sql, type InferResult, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { errorMapping } from '@gateway/lib/errors';
import type { TracesDatabase } from '../db/traces';
import type { DatabaseInteger } from './figures';

export const GROUPINGS = ['day', 'model', 'key', 'agent'] as const;
export type Grouping = (typeof GROUPINGS)[number];

/** One organization's requests in a window, optionally only those after the scan cap's cut. */
export interface Scope {
  organizationId: string;
  from: Date;
  to: Date;
  /**
   * Only requests that started after this instant: a timestamptz as Postgres
   * wrote it, microseconds and all (a JavaScript Date would drop them, and
   * count requests that started within the same millisecond as the cut).
   */
  after: string | undefined;
}

/**
 * The error classes edge records, from the one error mapping (the ledger
 * accepts no other): each gets its own count in the figures' single pass.
 */
export const ERROR_CLASSES: readonly string[] = [...new Set(Object.values(errorMapping).map(({ errorClass }) => errorClass))];

/**
 * The value a request is grouped by. A day is the UTC calendar day it
 * started on; a request with no served model, no API key (a legacy
 * credential) or no agent record (organization-level traffic) groups under null.
 */
function groupExpression(grouping: Grouping): RawBuilder<unknown> {
  switch (grouping) {
    case 'day':
      return sql`(started_at at time zone 'UTC')::date`;
    case 'model':
      return sql`served_model`;
    case 'key':
      return sql`api_key_id`;
    case 'agent':
      return sql`agent_id`;
  }
}

/** Every statement of a report reads exactly this: the organization's window (the index's key columns). */
function inScope<O>(query: SelectQueryBuilder<TracesDatabase, 'traces', O>, scope: Scope): SelectQueryBuilder<TracesDatabase, 'traces', O> {
  const windowed = query
    .where('organization_id', '=', scope.organizationId)
    .where('started_at', '>=', scope.from)
    .where('started_at', '<', scope.to);
  return scope.after === undefined ? windowed : windowed.where('started_at', '>', sql<Date>`${scope.after}::timestamptz`);
}

/**
 * The start of the newest request that does not fit under the cap, when the
 * window holds more than `cap` requests; no row otherwise. Counting only
 * requests after it keeps the newest ones (at most `cap`; fewer when several
 * started in the same microsecond as the cut). Reads at most cap + 1 index
 * entries, newest first.
 */
export function capCutQuery(db: Kysely<TracesDatabase>, scope: Scope, cap: number) {
  return inScope(db.selectFrom('traces').select(sql<string>`started_at::text`.as('cut')), scope)
    .orderBy('started_at', 'desc')
    .limit(1)
    .offset(cap);
}

/**
 * One row per group and one for the totals (ROLLUP), in one pass, failures
 * by class included. percentile_disc is the nearest-rank method: the
 * smallest latency whose cumulative share reaches the fraction, always a
 * latency some request had.
 */
export function figureQuery(db: Kysely<TracesDatabase>, scope: Scope, grouping: Grouping) {
  const group = groupExpression(grouping);
  return inScope(db.selectFrom('traces'), scope)
    .select([
      /** 1 on the totals row (the rollup's empty grouping set), 0 on a group's. */
      sql<number>`grouping(${group})`.as('is_total'),
      sql<string | null>`(${group})::text`.as('key'),
      sql<DatabaseInteger>`count(*)`.as('requests'),
      sql<DatabaseInteger>`count(error_class)`.as('errors'),
      /** Requests of each of ERROR_CLASSES, in that order. */
      sql<DatabaseInteger[]>`array[${sql.join(ERROR_CLASSES.map((errorClass) => sql`count(*) filter (where error_class = ${errorClass})`))}]`.as('failures'),
      sql<DatabaseInteger>`coalesce(sum(cost_micros), 0)`.as('cost_micros'),
      sql<DatabaseInteger>`count(*) - count(cost_micros)`.as('unpriced_requests'),
      /** [p50, p95, p99]; null only on a totals row over no request. */
      sql<number[] | null>`percentile_disc(array[0.5, 0.95, 0.99]) within group (order by latency_ms)`.as('latency_ms'),
    ])
    .groupBy(sql`rollup (${group})`);
}
export type FigureRow = InferResult<ReturnType<typeof figureQuery>>[number];

/**
 * Failed requests by error class, per group and in total: read only when
 * the figures' errors are not all of ERROR_CLASSES (a class from a later
 * version of edge), so that every class is still reported by its name.
 */
export function failureQuery(db: Kysely<TracesDatabase>, scope: Scope, grouping: Grouping) {
  const group = groupExpression(grouping);
  return inScope(db.selectFrom('traces'), scope)
    .where('error_class', 'is not', null)
    .select([
      sql<number>`grouping(${group})`.as('is_total'),
      sql<string | null>`(${group})::text`.as('key'),
      sql<string>`error_class`.as('error_class'),
      sql<DatabaseInteger>`count(*)`.as('requests'),
    ])
    .groupBy(sql`grouping sets ((${group}, error_class), (error_class))`);
}
export type FailureRow = InferResult<ReturnType<typeof failureQuery>>[number];
