import type { UsageDeps } from '../deps';
import { readTraces } from '../db/traces';
import { emptyFigures, toBigInt, type Figures } from './figures';
import { capCut, failureRows, figureRows, type FailureRow, type FigureRow, type Grouping } from './query';
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
  return {
    requests: toBigInt(row.requests),
    errors: toBigInt(row.errors),
    failures: new Map(),
    latencyMs: p50 === undefined || p95 === undefined || p99 === undefined ? null : { p50, p95, p99 },
    costMicros: toBigInt(row.cost_micros),
    unpricedRequests: toBigInt(row.unpriced_requests),
  };
}

/** Groups ordered by requests, most first, then by key with the null group last: the biggest spenders lead. */
function byRequestsThenKey(a: UsageGroup, b: UsageGroup): number {
  if (a.figures.requests !== b.figures.requests) return a.figures.requests > b.figures.requests ? -1 : 1;
  if (a.key === b.key) return 0;
  if (a.key === null) return 1;
  if (b.key === null) return -1;
  return a.key < b.key ? -1 : 1;
}

function assemble(grouping: Grouping, days: string[], rows: FigureRow[], failures: FailureRow[]): { totals: Figures; groups: UsageGroup[] } {
  let totals = emptyFigures();
  const byKey = new Map<string | null, Figures>();
  for (const row of rows) {
    if (row.is_total === 1) totals = figuresOf(row);
    else byKey.set(row.key, figuresOf(row));
  }
  for (const failure of failures) {
    const figures = failure.is_total === 1 ? totals : byKey.get(failure.key);
    figures?.failures.set(failure.error_class, toBigInt(failure.requests));
  }
  if (grouping === 'day') {
    // Every day of the window, in order; a day without traffic is all zeros.
    return { totals, groups: days.map((day) => ({ key: day, figures: byKey.get(day) ?? emptyFigures() })) };
  }
  const groups = [...byKey].map(([key, figures]) => ({ key, figures }));
  return { totals, groups: groups.sort(byRequestsThenKey) };
}

/**
 * One organization's report: in one read-only snapshot, find where the scan
 * cap cuts the window (if it does), then read the figures per group and in
 * total, and the failures by class.
 */
export async function readUsageReport(deps: UsageDeps, query: UsageQuery, timeoutMs: number): Promise<UsageReport> {
  const { from, to, days } = usageWindow(query.rangeDays, new Date());
  const limits = { timeoutMs, workMemMb: deps.settings.workMemMb };
  return readTraces(deps.db, limits, async (trx) => {
    const window = { organizationId: query.organizationId, from, to, after: undefined };
    const cut = await capCut(trx, window, deps.settings.scanCap);
    const scope = { ...window, after: cut };
    const rows = await figureRows(trx, scope, query.grouping);
    const failures = await failureRows(trx, scope, query.grouping);
    return { rangeDays: query.rangeDays, grouping: query.grouping, from, to, truncated: cut !== undefined, ...assemble(query.grouping, days, rows, failures) };
  });
}
