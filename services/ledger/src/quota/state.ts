import type { MeterName } from '@gateway/lib/catalog';
import type { MeterRule } from './meter';
import type { Period } from './period';

/** A meter's settled count for the period, and the organization's purchased credits left. */
export interface Counters {
  /** Micro-dollars spent (`spend`), or requests / messages counted. */
  used: bigint;
  credits: bigint;
  /** What reservations in flight hold on the meter, as the store read it with the rest. */
  held?: bigint;
  /** The organization's own spend allowance, when an operator set one: it replaces the plan's. */
  spendAllowance?: bigint;
}

/** What the quota headers say (docs/api.md#limits-and-allowances), for one meter. */
export type QuotaSnapshot =
  | { meter: 'spend'; allowanceMicros: bigint; spentMicros: bigint; remainingMicros: bigint; heldMicros?: bigint; resetsAt: Date }
  | {
      meter: Exclude<MeterName, 'spend'>;
      limit: bigint;
      used: bigint;
      /** Includes purchased credits. */
      remaining: bigint;
      credits: bigint;
      held?: bigint;
      resetsAt: Date;
    };

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Credits are consumed one by one once usage passes the plan's limit, so what
 * is left is the unused part of the limit plus the credits still held, less
 * what calls in flight hold: remaining is what a new call can still take, and
 * spent + held + remaining = allowance says why a call was refused.
 */
export function quotaSnapshot(rule: MeterRule, counters: Counters, period: Period): QuotaSnapshot {
  const held = counters.held ?? 0n;
  // The optional key last: a spread followed by keys it lacks is a shape V8 promotes out of its young
  // generation, and one snapshot is made per record (docs/performance.md, "Spread, then new keys").
  if (rule.meter === 'spend') {
    const allowance = counters.spendAllowance ?? rule.limit;
    return {
      meter: 'spend',
      allowanceMicros: allowance,
      spentMicros: counters.used,
      remainingMicros: max(0n, allowance - counters.used - held),
      resetsAt: period.resetsAt,
      ...(counters.held === undefined ? {} : { heldMicros: counters.held }),
    };
  }
  return {
    meter: rule.meter,
    limit: rule.limit,
    used: counters.used,
    remaining: max(0n, max(0n, rule.limit - counters.used) + counters.credits - held),
    credits: counters.credits,
    resetsAt: period.resetsAt,
    ...(counters.held === undefined ? {} : { held: counters.held }),
  };
}
