import { CronExpressionParser } from 'cron-parser';

/** Every schedule is in UTC, like every other time in the system. */
const TIME_ZONE = 'UTC';

/** The first run of a five-field cron expression strictly after `after`; throws on an expression cron-parser refuses. */
export function nextCronRun(cron: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { currentDate: after, tz: TIME_ZONE }).next().toDate();
}

export function isValidCron(cron: string): boolean {
  try {
    CronExpressionParser.parse(cron, { tz: TIME_ZONE });
    return cron.trim().split(/\s+/).length === 5;
  } catch {
    return false;
  }
}
