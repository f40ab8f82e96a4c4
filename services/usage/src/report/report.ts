import type { UsageDeps } from '../deps';
import { readTraces } from '../db/traces';
import { emptyFigures, type Figures } from './figures';
import { ERROR_CLASSES, capCutQuery, failureQuery, figureQuery, type FailureRow, type FigureRow, type Grouping } from './query';
import { usageWindow, type RangeDays } from './window';

export interface UsageQuery {
  organizationId: string;
  rangeDays: RangeDays;
  grouping: Grouping;
}

export interface UsageGroup {
  /** Null for requests that have no value to group by. */
  key: string | null;
  figures: Figures;
}

export interface UsageReport {
  rangeDays: RangeDays;
  grouping: Grouping;
  from: Date;
  to: Date;
  /** The window held more requests than the scan cap: the figures count the newest ones only. */
  truncated: boolean;
  totals: Figures;
  groups: UsageGroup[];
}

function figuresOf(row: FigureRow): Figures {
  const [p50, p95, p99] = row.latency_ms ?? [];
  const failures = new Map<string, bigint>();
  ERROR_CLASSES.forEach((errorClass, index) => {
    const count = BigInt(row.failures[index] ?? 0);
    if (count > 0n) failures.set(errorClass, count);
  });
  return {
    requests: BigInt(row.requests),
    errors: BigInt(row.errors),
    failures,
    latencyMs: p50 === undefined || p95 === undefined || p99 === undefined ? null : { p50, p95, p99 },
    costMicros: BigInt(row.cost_micros),
    unpricedRequests: BigInt(row.unpriced_requests),
  };
}

/** Whether the failures by class add up to the errors, i.e. every error's class is one of ERROR_CLASSES. */
function failuresComplete({ errors, failures }: Figures): boolean {
  return [...failures.values()].reduce((sum, count) => sum + count, 0n) === errors;
}

/** Groups ordered by requests, most first, then by key with the null group last: the biggest spenders lead. */
function byRequestsThenKey(a: UsageGroup, b: UsageGroup): number {
  if (a.figures.requests !== b.figures.requests) return a.figures.requests > b.figures.requests ? -1 : 1;
  if (a.key === b.key) return 0;
  if (a.key === null) return 1;
  if (b.key === null) return -1;
  return a.key < b.key ? -1 : 1;
}

function assemble(grouping: Grouping, days: string[], rows: FigureRow[]): { totals: Figures; groups: UsageGroup[] } {
  let totals = emptyFigures();
  const byKey = new Map<string | null, Figures>();
  for (const row of rows) {
    if (row.is_total === 1) totals = figuresOf(row);
    else byKey.set(row.key, figuresOf(row));
  }
  if (grouping === 'day') {
    // Every day of the window, in order; a day without traffic is all zeros.
    return { totals, groups: days.map((day) => ({ key: day, figures: byKey.get(day) ?? emptyFigures() })) };
  }
  const groups = [...byKey].map(([key, figures]) => ({ key, figures }));
  return { totals, groups: groups.sort(byRequestsThenKey) };
}

/** Replaces every failures map by the counts read by class name. */
function withFailuresByName(assembled: { totals: Figures; groups: UsageGroup[] }, rows: FailureRow[]): void {
  const byKey = new Map(assembled.groups.map((group) => [group.key, group.figures]));
  for (const figures of [assembled.totals, ...byKey.values()]) figures.failures = new Map();
  for (const row of rows) {
    const figures = row.is_total === 1 ? assembled.totals : byKey.get(row.key);
    figures?.failures.set(row.error_class, BigInt(row.requests));
  }
}

/**
 * One organization's report: in one read-only snapshot, find where the scan
 * cap cuts the window (if it does), then read the figures per group and in
 * total in one pass. Failures are read by name as well only when some error
 * has a class this code does not know.
 */
export async function readUsageReport(deps: UsageDeps, query: UsageQuery, timeoutMs: number): Promise<UsageReport> {
  const { from, to, days } = usageWindow(query.rangeDays, new Date());
  const limits = { timeoutMs, workMemMb: deps.settings.workMemMb };
  return readTraces(deps.db, limits, async (trx) => {
    const window = { organizationId: query.organizationId, from, to, after: undefined };
    const cut = (await capCutQuery(trx, window, deps.settings.scanCap).executeTakeFirst())?.cut;
    const scope = { ...window, after: cut };
    const assembled = assemble(query.grouping, days, await figureQuery(trx, scope, query.grouping).execute());
    if (!failuresComplete(assembled.totals)) withFailuresByName(assembled, await failureQuery(trx, scope, query.grouping).execute());
    return { rangeDays: query.rangeDays, grouping: query.grouping, from, to, truncated: cut !== undefined, ...assembled };
  });
}
