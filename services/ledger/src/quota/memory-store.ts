import type { MeterName } from '@gateway/lib/catalog';
import type { MemoryAllowanceChanges } from '../leases/changes';
import type { MemoryRecordQueue } from '../queue/memory-queue';
import { counterExpiryMs } from './key-expiry';
import type { Counters } from './state';
import type { CounterKey, LeaseCommand, LeaseOutcome, PeriodTotals, QuotaStore, ReserveCommand, ReserveOutcome, SettleCommand, SettleOutcome } from './store';

interface PeriodState {
  used: Record<MeterName, bigint>;
  reserved: Record<MeterName, bigint>;
  credits: bigint;
  spendAllowance?: bigint;
  holds: Map<string, { meter: MeterName; amount: bigint; expiresAtMs: number }>;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The admission rule (holds.lua's `fits`): nothing fits in nothing, not even an amount of 0; else what fits in what is left. */
const fits = (left: bigint, amount: bigint) => left > 0n && amount <= left;

/**
 * The quota counters of the embedded single-process mode, with the rules of
 * the Redis scripts (quota/lua). Every method does its work synchronously,
 * which makes it atomic in a single event loop.
 */
export class MemoryQuotaStore implements QuotaStore {
  private readonly periods = new Map<string, PeriodState>();

  constructor(
    private readonly queue: MemoryRecordQueue,
    private readonly changes: MemoryAllowanceChanges,
  ) {}

  reserve({ hold, limit, enforce, nowMs, ...key }: ReserveCommand): Promise<ReserveOutcome> {
    const state = this.periods.get(this.id(key));
    if (!state) return Promise.resolve({ kind: 'missing' });
    this.sweepExpired(state, nowMs);
    const counters = this.countersOf(state, hold.meter);
    if (state.holds.has(hold.id)) return Promise.resolve({ kind: 'reserved', counters });
    if (!fits(this.leftOn(state, hold.meter, limit), hold.amount) && enforce) return Promise.resolve({ kind: 'denied', counters });
    state.holds.set(hold.id, { meter: hold.meter, amount: hold.amount, expiresAtMs: hold.expiresAtMs });
    state.reserved[hold.meter] += hold.amount;
    return Promise.resolve({ kind: 'reserved', counters: this.countersOf(state, hold.meter) });
  }

  lease({ holdId, meter, need, want, giveBack, limit, enforce, nowMs, expiresAtMs, shareDivisor, ...key }: LeaseCommand): Promise<LeaseOutcome> {
    const state = this.periods.get(this.id(key));
    if (!state) return Promise.resolve({ kind: 'missing' });
    this.sweepExpired(state, nowMs);
    this.takeFromHold(state, holdId, meter, giveBack);
    const left = this.leftOn(state, meter, limit);
    let granted = 0n;
    const denied = (need > 0n || want > 0n) && enforce && !fits(left, need);
    if (!denied && (need > 0n || want > 0n)) granted = max(need, min(need + want, left / shareDivisor));
    const hold = state.holds.get(holdId);
    const amount = (hold?.amount ?? 0n) + granted;
    if (amount === 0n) {
      state.holds.delete(holdId);
    } else {
      state.holds.set(holdId, { meter, amount, expiresAtMs });
      state.reserved[meter] += granted;
    }
    return Promise.resolve({
      kind: denied ? 'denied' : 'granted',
      granted,
      leaseHeld: amount === 0n ? null : amount,
      counters: this.countersOf(state, meter),
    });
  }

  settle({ holdId, leaseId, nowMs, leaseExpiresAtMs, meter, usage, limit, commitByMs, ...key }: SettleCommand, record: string): Promise<SettleOutcome> {
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
    if (leaseId !== null) this.takeFromHold(state, leaseId, meter, usage);
    // Renewed only while still held: an expired lease is not brought back.
    const lease = leaseId === null ? undefined : state.holds.get(leaseId);
    const leaseRenewed = lease !== undefined && lease.expiresAtMs > nowMs;
    if (leaseRenewed) lease.expiresAtMs = leaseExpiresAtMs;
    state.used[meter] += usage;
    state.credits -= creditsUsed;
    return Promise.resolve({ kind: 'settled', counters: this.countersOf(state, meter), creditsUsed: Number(creditsUsed), leaseRenewed });
  }

  counters(key: CounterKey, meter: MeterName, nowMs: number): Promise<Counters | undefined> {
    const state = this.periods.get(this.id(key));
    if (state) this.sweepExpired(state, nowMs);
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
    this.changes.announce(key.organizationId);
    return Promise.resolve(state !== undefined);
  }

  addCredits(key: CounterKey, amount: bigint): Promise<boolean> {
    const state = this.periods.get(this.id(key));
    if (state) state.credits += amount;
    this.changes.announce(key.organizationId);
    return Promise.resolve(state !== undefined);
  }

  announce(organizationId: string): Promise<void> {
    this.changes.announce(organizationId);
    return Promise.resolve();
  }

  /** Abandoned holds (and leases nobody renewed) give their amount back. */
  private sweepExpired(state: PeriodState, nowMs: number): void {
    for (const [id, held] of state.holds) {
      if (held.expiresAtMs > nowMs) continue;
      state.reserved[held.meter] -= held.amount;
      state.holds.delete(id);
    }
  }

  /** Takes up to `amount` off a hold on the meter, keeping it and its expiry even at 0; relative, so takers commute. */
  private takeFromHold(state: PeriodState, id: string, meter: MeterName, amount: bigint): void {
    const hold = state.holds.get(id);
    if (!hold || hold.meter !== meter) return;
    const taken = min(amount, hold.amount);
    hold.amount -= taken;
    state.reserved[meter] -= taken;
  }

  /**
   * What is neither spent nor held on the meter, never below 0 (holds.lua's `left_on_meter`): the
   * own spend allowance replaces the plan's; each held request ends up as one request of the limit or one credit.
   */
  private leftOn(state: PeriodState, meter: MeterName, limit: bigint): bigint {
    const { used, credits, held } = this.countersOf(state, meter);
    return max(0n, meter === 'spend' ? (state.spendAllowance ?? limit) - used - held : max(0n, limit - used) + credits - held);
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
