import type { MeterName } from '@gateway/lib/catalog';
import type { MemoryRecordQueue } from '../queue/memory-queue';
import { counterExpiryMs } from './key-expiry';
import type { Counters } from './state';
import type { CounterKey, PeriodTotals, QuotaStore, ReserveCommand, ReserveOutcome, SettleCommand, SettleOutcome } from './store';

interface PeriodState {
  used: Record<MeterName, bigint>;
  reserved: Record<MeterName, bigint>;
  credits: bigint;
  spendAllowance?: bigint;
  holds: Map<string, { meter: MeterName; amount: bigint; expiresAtMs: number }>;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The quota counters of the embedded single-process mode, with the rules of
 * the Redis scripts (quota/lua). Every method does its work synchronously,
 * which makes it atomic in a single event loop.
 */
export class MemoryQuotaStore implements QuotaStore {
  private readonly periods = new Map<string, PeriodState>();

  constructor(private readonly queue: MemoryRecordQueue) {}

  reserve({ hold, limit, enforce, nowMs, ...key }: ReserveCommand): Promise<ReserveOutcome> {
    const state = this.periods.get(this.id(key));
    if (!state) return Promise.resolve({ kind: 'missing' });
    for (const [id, held] of state.holds) {
      if (held.expiresAtMs > nowMs) continue;
      state.reserved[held.meter] -= held.amount;
      state.holds.delete(id);
    }
    const counters = this.countersOf(state, hold.meter);
    if (state.holds.has(hold.id)) return Promise.resolve({ kind: 'reserved', counters });
    const reserved = counters.held;
    const spendLimit = state.spendAllowance ?? limit;
    const fits =
      hold.meter === 'spend'
        ? counters.used + reserved < spendLimit && counters.used + reserved + hold.amount <= spendLimit
        : reserved < max(0n, limit - counters.used) + counters.credits;
    if (!fits && enforce) return Promise.resolve({ kind: 'denied', counters: { ...counters, held: reserved } });
    state.holds.set(hold.id, { meter: hold.meter, amount: hold.amount, expiresAtMs: hold.expiresAtMs });
    state.reserved[hold.meter] += hold.amount;
    return Promise.resolve({ kind: 'reserved', counters: this.countersOf(state, hold.meter) });
  }

  settle({ holdId, meter, usage, limit, commitByMs, ...key }: SettleCommand, record: string): Promise<SettleOutcome> {
    if (commitByMs !== null && Date.now() >= commitByMs) return Promise.resolve({ kind: 'late' });
    const state = this.periods.get(this.id(key));
    if (!state) return Promise.resolve({ kind: 'missing' });
    const used = state.used[meter];
    const beyond = used + usage - max(used, limit);
    const creditsUsed = meter !== 'spend' && beyond > 0n ? min(state.credits, beyond) : 0n;
    this.queue.push(record, Number(creditsUsed));
    const held = holdId === null ? undefined : state.holds.get(holdId);
    if (held && holdId !== null) {
      state.reserved[held.meter] -= held.amount;
      state.holds.delete(holdId);
    }
    state.used[meter] += usage;
    state.credits -= creditsUsed;
    return Promise.resolve({ kind: 'settled', counters: this.countersOf(state, meter), creditsUsed: Number(creditsUsed) });
  }

  counters(key: CounterKey, meter: MeterName): Promise<Counters | undefined> {
    const state = this.periods.get(this.id(key));
    return Promise.resolve(state && this.countersOf(state, meter));
  }

  rebuild(key: CounterKey, { used, credits, spendAllowance }: PeriodTotals): Promise<void> {
    const id = this.id(key);
    if (this.periods.has(id)) return Promise.resolve();
    this.forgetExpiredPeriods(Date.now());
    this.periods.set(id, {
      used: { ...used },
      reserved: { spend: 0n, requests: 0n, legacy: 0n },
      credits,
      ...(spendAllowance === undefined ? {} : { spendAllowance }),
      holds: new Map(),
    });
    return Promise.resolve();
  }

  setSpendAllowance(key: CounterKey, micros: bigint | null): Promise<boolean> {
    const state = this.periods.get(this.id(key));
    if (state) {
      if (micros === null) delete state.spendAllowance;
      else state.spendAllowance = micros;
    }
    return Promise.resolve(state !== undefined);
  }

  addCredits(key: CounterKey, amount: bigint): Promise<boolean> {
    const state = this.periods.get(this.id(key));
    if (state) state.credits += amount;
    return Promise.resolve(state !== undefined);
  }

  private id({ organizationId, period }: CounterKey): string {
    return `${organizationId}:${period}`;
  }

  private countersOf(state: PeriodState, meter: MeterName): Counters & { held: bigint } {
    return {
      used: state.used[meter],
      credits: max(0n, state.credits),
      held: max(0n, state.reserved[meter]),
      ...(state.spendAllowance === undefined ? {} : { spendAllowance: state.spendAllowance }),
    };
  }

  /** Mirrors the expiry of the Redis keys, so a long-running process does not keep every month. */
  private forgetExpiredPeriods(nowMs: number): void {
    for (const id of this.periods.keys()) {
      if (counterExpiryMs(id.slice(id.lastIndexOf(':') + 1)) < nowMs) this.periods.delete(id);
    }
  }
}
