import type { CatalogInForce } from './catalog-in-force';
import { withLoadedCounters, type CounterDeps } from './counters';
import { meterFor, type MeteredSubject } from './meter';
import { periodOf, secondsUntilReset } from './period';
import { quotaSnapshot, type QuotaSnapshot } from './state';
import { storeFailure } from './store-failure';

export interface QuotaDeps extends CounterDeps {
  catalog: CatalogInForce;
}

export interface QuotaCheck {
  subject: MeteredSubject;
  requestId: string;
  estimatedCostMicros: bigint;
}

export type QuotaDecision =
  | { allowed: true; quota: QuotaSnapshot; reservationId: string }
  | { allowed: false; quota: QuotaSnapshot; retryAfterSeconds: number };

/**
 * Reserves before the call: the estimate on the spend meter, one request on
 * the others. Refused only when enforcement applies and it does not fit;
 * legacy credentials always get their reservation, so they are counted.
 */
export async function checkQuota(deps: QuotaDeps, check: QuotaCheck, holdTtlMs: number, now = new Date()): Promise<QuotaDecision> {
  const rule = meterFor(check.subject, deps.catalog.current());
  const period = periodOf(now);
  const key = { organizationId: check.subject.organizationId, period: period.key };
  const outcome = await withLoadedCounters(deps, key, now, () =>
    deps.quota.reserve({
      ...key,
      hold: {
        id: check.requestId,
        meter: rule.meter,
        amount: rule.meter === 'spend' ? check.estimatedCostMicros : 1n,
        expiresAtMs: now.getTime() + holdTtlMs,
      },
      limit: rule.limit,
      enforce: check.subject.enforce,
      nowMs: now.getTime(),
    }),
  ).catch(storeFailure);
  const quota = quotaSnapshot(rule, outcome.counters, period);
  if (outcome.kind === 'denied') return { allowed: false, quota, retryAfterSeconds: secondsUntilReset(period, now) };
  return { allowed: true, quota, reservationId: `${period.key}:${check.requestId}` };
}

/** The subject's quota now, without reserving anything. */
export async function currentQuota(deps: QuotaDeps, subject: MeteredSubject, now = new Date()): Promise<QuotaSnapshot> {
  const rule = meterFor(subject, deps.catalog.current());
  const period = periodOf(now);
  const key = { organizationId: subject.organizationId, period: period.key };
  const counters = await withLoadedCounters(deps, key, now, () => deps.quota.counters(key, rule.meter, now.getTime())).catch(storeFailure);
  return quotaSnapshot(rule, counters, period);
}
