import { periodFromKey } from './period';

/** A period's counters outlive it by a few days: late settlements still find them. */
const GRACE_MS = 3 * 24 * 3600 * 1000;

export function counterExpiryMs(period: string): number {
  return periodFromKey(period).resetsAt.getTime() + GRACE_MS;
}
