import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { TracesDatabase, TracesTransaction } from '../db/traces';
import type { DatabaseInteger } from './figures';

export const GROUPINGS = ['day', 'model', 'key', 'agent'] as const;
export type Grouping = (typeof GROUPINGS)[number];

/** One organization's requests in a window, optionally only those after the scan cap's cut. */
export interface Scope {
  organizationId: string;
  from: Date;
  to: Date;
  /** Only requests that started after this instant. */
  after: Date | undefined;
}

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
  return scope.after === undefined ? windowed : windowed.where('started_at', '>', scope.after);
}

/**
 * The start of the newest request that does not fit under the cap, when the
 * window holds more than `cap` requests; undefined otherwise. Counting only
 * requests after it keeps the newest ones (at most `cap`; fewer when several
 * started in the same microsecond as the cut). Reads at most cap + 1 index
 * entries, newest first.
 */
export async function capCut(trx: TracesTransaction, scope: Scope, cap: number): Promise<Date | undefined> {
  const row = await inScope(trx.selectFrom('traces').select('started_at'), scope)
    .orderBy('started_at', 'desc')
    .limit(1)
    .offset(cap)
    .executeTakeFirst();
  return row?.started_at;
}

export interface FigureRow {
  /** 1 on the totals row (the rollup's empty grouping set), 0 on a group's. */
  is_total: number;
  key: string | null;
  requests: DatabaseInteger;
  errors: DatabaseInteger;
  cost_micros: DatabaseInteger;
  unpriced_requests: DatabaseInteger;
  /** [p50, p95, p99]. */
  latency_ms: number[] | null;
}

/**
 * One row per group and one for the totals (ROLLUP), in one pass.
 * percentile_disc is the nearest-rank method: the smallest latency whose
 * cumulative share reaches the fraction, always a latency some request had.
 */
export function figureRows(trx: TracesTransaction, scope: Scope, grouping: Grouping): Promise<FigureRow[]> {
  const group = groupExpression(grouping);
  return inScope(trx.selectFrom('traces'), scope)
    .select([
      sql<number>`grouping(${group})`.as('is_total'),
      sql<string | null>`(${group})::text`.as('key'),
      sql<DatabaseInteger>`count(*)`.as('requests'),
      sql<DatabaseInteger>`count(error_class)`.as('errors'),
      sql<DatabaseInteger>`coalesce(sum(cost_micros), 0)`.as('cost_micros'),
      sql<DatabaseInteger>`count(*) - count(cost_micros)`.as('unpriced_requests'),
      sql<number[] | null>`percentile_disc(array[0.5, 0.95, 0.99]) within group (order by latency_ms)`.as('latency_ms'),
    ])
    .groupBy(sql`rollup (${group})`)
    .execute();
}

export interface FailureRow {
  is_total: number;
  key: string | null;
  error_class: string;
  requests: DatabaseInteger;
}

/** Failed requests by error class, per group and in total. */
export function failureRows(trx: TracesTransaction, scope: Scope, grouping: Grouping): Promise<FailureRow[]> {
  const group = groupExpression(grouping);
  return inScope(trx.selectFrom('traces'), scope)
    .where('error_class', 'is not', null)
    .select([
      sql<number>`grouping(${group})`.as('is_total'),
      sql<string | null>`(${group})::text`.as('key'),
      sql<string>`error_class`.as('error_class'),
      sql<DatabaseInteger>`count(*)`.as('requests'),
    ])
    .groupBy(sql`grouping sets ((${group}, error_class), (error_class))`)
    .execute();
}
