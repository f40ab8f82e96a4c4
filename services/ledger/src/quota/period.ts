/**
 * The quota period is the calendar month in UTC (docs/api.md): it starts on the
 * first instant of the month and resets on the first instant of the next.
 */
export interface Period {
  /** `YYYY-MM`, as used in Redis keys and reservation ids. */
  key: string;
  /** First instant of the month (UTC). */
  start: Date;
  /** First instant of the next month (UTC): `x-service-quota-resets`. */
  resetsAt: Date;
}

const PERIOD_KEY = /^(\d{4})-(0[1-9]|1[0-2])$/;

function periodStarting(year: number, monthIndex: number): Period {
  const start = new Date(Date.UTC(year, monthIndex, 1));
  return {
    key: `${start.getUTCFullYear()}-${String(start.getUTCMonth() + 1).padStart(2, '0')}`,
    start,
    resetsAt: new Date(Date.UTC(year, monthIndex + 1, 1)),
  };
}

export function periodOf(at: Date): Period {
  return periodStarting(at.getUTCFullYear(), at.getUTCMonth());
}

export function isPeriodKey(text: string): boolean {
  return PERIOD_KEY.test(text);
}

export function periodFromKey(key: string): Period {
  const match = PERIOD_KEY.exec(key);
  if (!match) throw new RangeError(`not a period key (YYYY-MM): ${JSON.stringify(key)}`);
  return periodStarting(Number(match[1]), Number(match[2]) - 1);
}

/** The period's first day as a Postgres `date` literal (`YYYY-MM-01`). */
export function periodDate(period: Period): string {
  return `${period.key}-01`;
}

/** Whole seconds until the period resets, rounded up: the `retry-after` of a 402. */
export function secondsUntilReset(period: Period, now: Date): number {
  return Math.max(1, Math.ceil((period.resetsAt.getTime() - now.getTime()) / 1000));
}
