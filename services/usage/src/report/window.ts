/**
 * The window of a report: the last `rangeDays` UTC calendar days, today
 * included, from 00:00 UTC of the first day (inclusive) to the moment the
 * report is read (exclusive). Whole days make every day group a whole day
 * except today's, so the first bar of a chart is never a fraction of a day.
 */
export const RANGE_DAYS = [7, 14, 30, 90] as const;
export type RangeDays = (typeof RANGE_DAYS)[number];
export const DEFAULT_RANGE_DAYS: RangeDays = 30;

const DAY_MS = 86_400_000;

export interface UsageWindow {
  from: Date;
  to: Date;
  /** Every UTC day of the window, `YYYY-MM-DD`, oldest first. */
  days: string[];
}

/** `YYYY-MM-DD` of the UTC day an instant falls on. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

export function usageWindow(rangeDays: RangeDays, now: Date): UsageWindow {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // A UTC day is always 86,400,000 ms: no daylight saving, and JavaScript time has no leap seconds.
  const from = new Date(today - (rangeDays - 1) * DAY_MS);
  const days = Array.from({ length: rangeDays }, (_, index) => utcDay(new Date(from.getTime() + index * DAY_MS)));
  return { from, to: now, days };
}
