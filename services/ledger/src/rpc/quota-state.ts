import { Meter, type QuotaState } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import type { MeterName } from '@gateway/lib/catalog';
import type { QuotaSnapshot } from '../quota/state';

const protoMeters: Record<MeterName, Meter> = {
  spend: Meter.METER_SPEND,
  requests: Meter.METER_REQUESTS,
  legacy: Meter.METER_LEGACY,
};

/** The quota state on the wire: only the counters of its meter are set (docs/api.md#limits-and-allowances). */
export function toProtoQuota(snapshot: QuotaSnapshot): QuotaState {
  const base = { meter: protoMeters[snapshot.meter], resetsAt: snapshot.resetsAt };
  const none = { allowanceMicros: '0', spentMicros: '0', remainingMicros: '0', limit: '0', used: '0', remaining: '0', credits: '0', hasCredits: false };
  if (snapshot.meter === 'spend') {
    return {
      ...none,
      ...base,
      allowanceMicros: snapshot.allowanceMicros.toString(),
      spentMicros: snapshot.spentMicros.toString(),
      remainingMicros: snapshot.remainingMicros.toString(),
      heldMicros: snapshot.heldMicros?.toString(),
    };
  }
  return {
    ...none,
    ...base,
    limit: snapshot.limit.toString(),
    used: snapshot.used.toString(),
    remaining: snapshot.remaining.toString(),
    credits: snapshot.credits.toString(),
    hasCredits: snapshot.credits > 0n,
    held: snapshot.held?.toString(),
  };
}
