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

export interface RecordResult {
  /** The record is in the durable queue (`x-service-metered`). */
  accepted: boolean;
  quota: QuotaSnapshot | undefined;
}

/**
 * Settles the request's reservation and queues its trace and ledger entry,
 * in one atomic step of the store. Best-effort: a store that fails gives
 * `accepted: false`, never an error, and the response still goes out.
 */
export async function recordRequest(deps: RecordDeps, record: ValidRecord, outage: OutageLog, now = new Date()): Promise<RecordResult> {
  const rule = meterFor(record.subject, deps.catalog);
  // A request counts in the period it reserved in, else the one it started in.
  const period = record.reservationId ? periodFromKey(record.reservationId.period) : periodOf(record.startedAt);
  const key = { organizationId: record.subject.organizationId, period: period.key };
  const payload = JSON.stringify(buildPayload(record, rule.meter, period, now));
  try {
    const outcome = await withLoadedCounters(deps, key, now, () =>
      deps.quota.settle(
        { ...key, holdId: record.reservationId?.holdId ?? null, meter: rule.meter, usage: usageOf(record, rule.meter), limit: rule.limit },
        payload,
      ),
    );
    outage.succeeded();
    return { accepted: true, quota: quotaSnapshot(rule, outcome.counters, period) };
  } catch (error) {
    outage.failed(error, { request_id: record.requestId });
    return { accepted: false, quota: undefined };
  }
}
