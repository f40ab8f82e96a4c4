import type { MeterName } from '@gateway/lib/catalog';
import { type QuotaDeps } from '../quota/check';
import { withLoadedCounters } from '../quota/counters';
import { meterFor, type MeteredSubject } from '../quota/meter';
import { periodOf, secondsUntilReset } from '../quota/period';
import { quotaSnapshot, type QuotaSnapshot } from '../quota/state';
import type { LeaseOutcome } from '../quota/store';
import { storeFailure } from '../quota/store-failure';
import { reclaimForLease, type FruitlessReclaims, type LeaseAttempt, type ReclaimOutcome } from './reclaim';

export interface LeaseSettings {
  /** How long a lease stays held after each answer that leaves one (LEASE_TTL_MS). */
  ttlMs: number;
  /** A grant beyond the waiting call's need is at most what is left divided by this (LEASE_SHARE_DIVISOR). */
  shareDivisor: number;
  /** How long a Lease the allowance left cannot cover waits for other holders' unused slices (LEASE_RECLAIM_WAIT_MS); 0: not at all. */
  reclaimWaitMs: number;
}

export interface LeaseAsk {
  subject: MeteredSubject;
  holderId: string;
  need: bigint;
  want: bigint;
  giveBack: bigint;
}

export interface LeaseDecision {
  granted: boolean;
  grantedAmount: bigint;
  /** For RecordRequest.lease_id; null when the lease holds nothing. */
  leaseId: string | null;
  quota: QuotaSnapshot;
  /** Seconds until the period resets, when not granted; 0 otherwise. */
  retryAfterSeconds: number;
  /** How waiting for other holders' unused slices ended, when the first try was refused and they could have covered it. */
  reclaim: ReclaimOutcome | undefined;
}

/** The lease's hold among the period's holds: one per holder and meter, never a request id (those are hex). */
export function leaseHoldId(holderId: string, meter: MeterName): string {
  return `lease:${holderId}:${meter}`;
}

/** A try of the Lease, with what reclaiming reads off it. */
interface Tried extends LeaseAttempt {
  outcome: Exclude<LeaseOutcome, { kind: 'missing' }>;
  quota: QuotaSnapshot;
}

const remainingOf = (quota: QuotaSnapshot) => (quota.meter === 'spend' ? quota.remainingMicros : quota.remaining);

/**
 * One holder's ask on its lease of the subject's allowance, in the current
 * period (docs/decisions.md#admission-and-allowance-leases). The lease id
 * names the period too, so a call admitted against it just before the month
 * turns settles where it was held, as a reservation does. A need the
 * allowance left cannot cover, while other holders hold slices, waits for
 * what they hold unused (leases/reclaim.ts).
 */
export async function leaseAllowance(deps: QuotaDeps, ask: LeaseAsk, settings: LeaseSettings, fruitless: FruitlessReclaims, now = new Date()): Promise<LeaseDecision> {
  const rule = meterFor(ask.subject, deps.catalog.current());
  const period = periodOf(now);
  const key = { organizationId: ask.subject.organizationId, period: period.key };
  const holdId = leaseHoldId(ask.holderId, rule.meter);
  const tryLease = async (giveBack: bigint, at: Date): Promise<Tried> => {
    const outcome = await withLoadedCounters(deps, key, at, () =>
      deps.quota.lease({
        ...key,
        holdId,
        meter: rule.meter,
        need: ask.need,
        want: ask.want,
        giveBack,
        limit: rule.limit,
        enforce: ask.subject.enforce,
        nowMs: at.getTime(),
        expiresAtMs: at.getTime() + settings.ttlMs,
        shareDivisor: BigInt(settings.shareDivisor),
      }),
    ).catch(storeFailure);
    const quota = quotaSnapshot(rule, outcome.counters, period);
    const othersHeld = (outcome.counters.held ?? 0n) - (outcome.leaseHeld ?? 0n);
    return { outcome, quota, granted: outcome.kind === 'granted', othersHeld, remaining: remainingOf(quota) };
  };
  const first = await tryLease(ask.giveBack, now);
  const { attempt, outcome: reclaim } = first.granted
    ? { attempt: first, outcome: undefined }
    : await reclaimForLease({
        refused: first,
        need: ask.need,
        key: `${key.organizationId}:${key.period}:${rule.meter}`,
        fruitless,
        waitMs: settings.reclaimWaitMs,
        announce: () => deps.quota.announce(key.organizationId),
        // What this holder gave back was taken by the first try.
        again: () => tryLease(0n, new Date()),
      });
  const { outcome, quota } = attempt;
  const granted = outcome.kind === 'granted';
  return {
    granted,
    grantedAmount: outcome.granted,
    leaseId: outcome.leaseHeld === null ? null : `${period.key}:${holdId}`,
    quota,
    retryAfterSeconds: granted ? 0 : secondsUntilReset(period, now),
    reclaim,
  };
}
