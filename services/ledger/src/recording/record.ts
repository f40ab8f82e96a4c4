import type { Logger } from '@gateway/lib/logging';
import type { OutageLog } from '../outage-log';
import { type QuotaDeps } from '../quota/check';
import { withLoadedCounters } from '../quota/counters';
import { meterFor } from '../quota/meter';
import { periodFromKey, periodOf } from '../quota/period';
import { quotaSnapshot, type QuotaSnapshot } from '../quota/state';
import type { ValidRecord } from '../rpc/schemas';
import { buildPayload, usageOf } from './build';

export interface RecordDeps extends QuotaDeps {
  logger: Logger;
}

export type RecordResult =
  /** The record is in the durable queue (`x-service-metered: true`); `leaseRenewed`: the call's lease lasts another term from now. */
  | { accepted: true; quota: QuotaSnapshot; leaseRenewed: boolean }
  /** Nothing changed: the store failed, or the commit deadline passed first (`late`). */
  | { accepted: false; quota: undefined; refused: 'store' | 'late' };

/**
 * Settles the request's reservation and queues its trace and ledger entry,
 * in one atomic step of the store. Best-effort: a store that fails gives
 * `accepted: false`, never an error, and the response still goes out.
 * Past `commitByMs` (see commitDeadline) the store changes nothing and the
 * answer is `accepted: false`: a late record is never committed. The lease
 * the call was admitted against, still held, is renewed for `leaseTtlMs`.
 */
export async function recordRequest(
  deps: RecordDeps,
  record: ValidRecord,
  outage: OutageLog,
  commitByMs: number | null,
  leaseTtlMs: number,
  now = new Date(),
): Promise<RecordResult> {
  const rule = meterFor(record.subject, deps.catalog.current());
  // A request counts in the period it reserved (or leased) in, else the one it started in.
  const admittedIn = record.reservationId?.period ?? record.leaseId?.period;
  const period = admittedIn ? periodFromKey(admittedIn) : periodOf(record.startedAt);
  const key = { organizationId: record.subject.organizationId, period: period.key };
  const payload = JSON.stringify(buildPayload(record, rule.meter, period, now));
  try {
    // The key's fields one by one, not `...key` followed by new keys (see quotaSnapshot).
    const outcome = await withLoadedCounters(deps, key, now, () =>
      deps.quota.settle(
        {
          organizationId: key.organizationId,
          period: key.period,
          holdId: record.reservationId?.holdId ?? null,
          leaseId: record.leaseId?.holdId ?? null,
          nowMs: now.getTime(),
          leaseExpiresAtMs: now.getTime() + leaseTtlMs,
          meter: rule.meter,
          usage: usageOf(record, rule.meter),
          limit: rule.limit,
          commitByMs,
        },
        payload,
      ),
    );
    outage.succeeded();
    if (outcome.kind === 'late') {
      deps.logger.debug({ request_id: record.requestId }, 'record arrived at the store after its commit deadline: not recorded');
      return { accepted: false, quota: undefined, refused: 'late' };
    }
    return { accepted: true, quota: quotaSnapshot(rule, outcome.counters, period), leaseRenewed: outcome.leaseRenewed };
  } catch (error) {
    outage.failed(error, { request_id: record.requestId });
    return { accepted: false, quota: undefined, refused: 'store' };
  }
}
