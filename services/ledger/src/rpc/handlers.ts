import type { LedgerServiceService } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { DomainError } from '@gateway/lib/errors';
import type { ServiceHandlers } from '@gateway/lib/grpc';
import type { LedgerDeps, LedgerSettings } from '../deps';
import { allowanceChangesUntil } from '../leases/changes';
import { leaseAllowance } from '../leases/lease';
import { FruitlessReclaims } from '../leases/reclaim';
import { outageLog } from '../outage-log';
import { checkQuota, currentQuota } from '../quota/check';
import { commitDeadline } from '../recording/commit-deadline';
import { recordRequest } from '../recording/record';
import { toProtoQuota } from './quota-state';
import { checkQuotaSchema, getQuotaSchema, leaseSchema, recordSchema, watchLeasesSchema } from './schemas';
import { parseInput } from '@gateway/lib/validation';
import { gatewayMeter } from '@gateway/lib/metrics';

/** The RPCs: validate, run the logic, shape the answer. */
export function ledgerHandlers(deps: LedgerDeps, settings: LedgerSettings): ServiceHandlers<typeof LedgerServiceService> {
  const holdTtlMs = settings.reservationTtlSeconds * 1000;
  const recordOutage = outageLog(deps.logger, 'record');
  const quotaOutage = outageLog(deps.logger, 'quota');
  const decisions = gatewayMeter().createCounter('ledger.quota.decisions', {
    description: 'Quota checks answered, by whether the reservation was allowed and the meter it was made on.',
  });
  const records = gatewayMeter().createCounter('ledger.records', {
    description: 'Records taken (accepted: in the durable queue, `x-service-metered: true`) or not, and why not (refused: store, late).',
  });
  const leases = gatewayMeter().createCounter('ledger.leases', {
    description: 'Lease answers, by whether they granted (a renewal grants nothing and counts as granted) and the meter.',
  });
  const reclaims = gatewayMeter().createCounter('ledger.lease.reclaims', {
    description:
      'Refused Leases that other holders\' unused slices could have covered, by how waiting for them ended: granted, refused (the wait ran out), fruitless (answered at once: the last reclaim got nothing back), announce_failed.',
  });
  const watchers = gatewayMeter().createUpDownCounter('ledger.lease.watchers', {
    description: 'WatchLeases streams open on this process.',
  });
  const fruitlessReclaims = new FruitlessReclaims();
  /** Unavailability is logged once per outage here; the RPC layer logs nothing for it. */
  const watched = async <T>(operation: Promise<T>): Promise<T> => {
    try {
      const result = await operation;
      quotaOutage.succeeded();
      return result;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'unavailable') quotaOutage.failed(error.cause ?? error);
      throw error;
    }
  };
  const record: ServiceHandlers<typeof LedgerServiceService>['record'] = async (request, { deadline }) => {
    const receivedAtMs = Date.now();
    const valid = parseInput(recordSchema, request);
    const commitByMs = commitDeadline(deadline, receivedAtMs, valid.commitWithinMs);
    const result = await recordRequest(deps, valid, recordOutage, commitByMs, settings.lease.ttlMs);
    records.add(1, result.accepted ? { accepted: true } : { accepted: false, refused: result.refused });
    return {
      accepted: result.accepted,
      quota: result.quota && toProtoQuota(result.quota),
      leaseValidForMs: result.accepted && result.leaseRenewed ? settings.lease.ttlMs : 0,
    };
  };
  return {
    checkQuota: async (request) => {
      const decision = await watched(checkQuota(deps, parseInput(checkQuotaSchema, request), holdTtlMs));
      decisions.add(1, { allowed: decision.allowed, meter: decision.quota.meter });
      return decision.allowed
        ? { allowed: true, quota: toProtoQuota(decision.quota), retryAfterSeconds: 0, reservationId: decision.reservationId }
        : { allowed: false, quota: toProtoQuota(decision.quota), retryAfterSeconds: decision.retryAfterSeconds, reservationId: '' };
    },
    record,
    // The same Record, each call carried over a stream that lasts (what edge uses).
    streamRecords: record,
    getQuota: async (request) => {
      const { subject } = parseInput(getQuotaSchema, request);
      return { quota: toProtoQuota(await watched(currentQuota(deps, subject))) };
    },
    lease: async (request) => {
      const decision = await watched(leaseAllowance(deps, parseInput(leaseSchema, request), settings.lease, fruitlessReclaims));
      leases.add(1, { granted: decision.granted, meter: decision.quota.meter });
      if (decision.reclaim) reclaims.add(1, { outcome: decision.reclaim, meter: decision.quota.meter });
      return {
        granted: decision.granted,
        grantedAmount: decision.grantedAmount.toString(),
        leaseId: decision.leaseId ?? '',
        validForMs: settings.lease.ttlMs,
        quota: toProtoQuota(decision.quota),
        retryAfterSeconds: decision.retryAfterSeconds,
      };
    },
    watchLeases: async function* (request, { signal }) {
      parseInput(watchLeasesSchema, request);
      watchers.add(1);
      try {
        for await (const organizationId of allowanceChangesUntil(deps.allowanceChanges, signal)) yield { organizationId };
      } finally {
        watchers.add(-1);
      }
    },
  };
}
