/**
 * How the Console writes times and counts. Times are UTC, as the API keeps
 * them; money is never formatted here: it is shown exactly as the API's
 * decimal string (see money.ts).
 */
const dateTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const date = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });
const day = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'short', day: 'numeric' });
const count = new Intl.NumberFormat('en-US');

export const formatDateTime = (iso: string) => `${dateTime.format(new Date(iso))} UTC`;
export const formatDate = (iso: string) => date.format(new Date(iso));
export const formatDay = (iso: string) => day.format(new Date(iso));
export const formatCount = (value: number) => count.format(value);
export const formatLatency = (ms: number | null) => (ms === null ? '–' : `${count.format(ms)} ms`);
