import type { MeterName } from '@gateway/lib/catalog';
import { type QuotaDeps } from '../quota/check';
import { withLoadedCounters } from '../quota/counters';
import { meterFor, type MeteredSubject } from '../quota/meter';
import { periodOf, secondsUntilReset } from '../quota/period';
import { quotaSnapshot, type QuotaSnapshot } from '../quota/state';
import { storeFailure } from '../quota/store-failure';

export interface LeaseSettings {
  /** How long a lease stays held after each answer that leaves one (LEASE_TTL_MS). */
  ttlMs: number;
  /** A grant beyond the waiting call's need is at most what is left divided by this (LEASE_SHARE_DIVISOR). */
  shareDivisor: number;
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
}

/** The lease's hold among the period's holds: one per holder and meter, never a request id (those are hex). */
export function leaseHoldId(holderId: string, meter: MeterName): string {
  return `lease:${holderId}:${meter}`;
}

/**
 * One holder's ask on its lease of the subject's allowance, in the current
 * period (docs/decisions.md#admission-and-allowance-leases). The lease id
 * names the period too, so a call admitted against it just before the month
 * turns settles where it was held, as a reservation does.
 */
export async function leaseAllowance(deps: QuotaDeps, ask: LeaseAsk, settings: LeaseSettings, now = new Date()): Promise<LeaseDecision> {
  const rule = meterFor(ask.subject, deps.catalog.current());
  const period = periodOf(now);
  const key = { organizationId: ask.subject.organizationId, period: period.key };
  const holdId = leaseHoldId(ask.holderId, rule.meter);
  const outcome = await withLoadedCounters(deps, key, now, () =>
    deps.quota.lease({
      ...key,
      holdId,
      meter: rule.meter,
      need: ask.need,
      want: ask.want,
      giveBack: ask.giveBack,
      limit: rule.limit,
      enforce: ask.subject.enforce,
      nowMs: now.getTime(),
      expiresAtMs: now.getTime() + settings.ttlMs,
      shareDivisor: BigInt(settings.shareDivisor),
    }),
  ).catch(storeFailure);
  const granted = outcome.kind === 'granted';
  return {
    granted,
    grantedAmount: outcome.granted,
    leaseId: outcome.leaseHeld === null ? null : `${period.key}:${holdId}`,
    quota: quotaSnapshot(rule, outcome.counters, period),
    retryAfterSeconds: granted ? 0 : secondsUntilReset(period, now),
  };
}
