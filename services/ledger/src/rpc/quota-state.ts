import { Meter, type QuotaState } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { MeterName } from '@gateway/lib/catalog';
import type { QuotaSnapshot } from '../quota/state';

const protoMeters: Record<MeterName, Meter> = {
  spend: Meter.METER_SPEND,
  requests: Meter.METER_REQUESTS,
  legacy: Meter.METER_LEGACY,
};

/**
 * The quota state on the wire: only the counters of its meter are set (docs/api.md#limits-and-allowances).
 * Written out field by field: a spread of one object into another with keys it lacks is a shape V8
 * promotes out of its young generation, on a path that runs once a record (docs/performance.md).
 */
export function toProtoQuota(snapshot: QuotaSnapshot): QuotaState {
  const meter = protoMeters[snapshot.meter];
  if (snapshot.meter === 'spend') {
    return {
      meter,
      allowanceMicros: snapshot.allowanceMicros.toString(),
      spentMicros: snapshot.spentMicros.toString(),
      remainingMicros: snapshot.remainingMicros.toString(),
      limit: '0',
      used: '0',
      remaining: '0',
      credits: '0',
      hasCredits: false,
      resetsAt: snapshot.resetsAt,
      heldMicros: snapshot.heldMicros?.toString(),
    };
  }
  return {
    meter,
    allowanceMicros: '0',
    spentMicros: '0',
    remainingMicros: '0',
    limit: snapshot.limit.toString(),
    used: snapshot.used.toString(),
    remaining: snapshot.remaining.toString(),
    credits: snapshot.credits.toString(),
    hasCredits: snapshot.credits > 0n,
    resetsAt: snapshot.resetsAt,
    held: snapshot.held?.toString(),
  };
}
