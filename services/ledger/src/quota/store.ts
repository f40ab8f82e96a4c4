import type { MeterName } from '@gateway/lib/catalog';
import type { Counters } from './state';

/** One organization's counters for one period. */
export interface CounterKey {
  organizationId: string;
  /** `YYYY-MM` (UTC). */
  period: string;
}

/** What a request holds on its meter while its call is in flight. */
export interface Hold {
  /** The request id: reserving twice for one request holds once. */
  id: string;
  meter: MeterName;
  /** Estimated micro-dollars (`spend`) or 1 (`requests`, `legacy`). */
  amount: bigint;
  /** After this instant the hold is released by the next reservation of the period. */
  expiresAtMs: number;
}

export interface ReserveCommand extends CounterKey {
  hold: Hold;
  limit: bigint;
  /** False: measured, never refused (legacy credentials). */
  enforce: boolean;
  nowMs: number;
}

export interface SettleCommand extends CounterKey {
  /** The hold to release, if the request reserved one. */
  holdId: string | null;
  /**
   * The lease hold the call was admitted against, in place of a hold of its
   * own: the usage comes off it (at most what it holds), and it stays for the
   * holder's next calls, its expiry moved to `leaseExpiresAtMs` (the Record
   * renews the lease, so a lease in steady use needs no renewal of its own).
   * Gone (expired by `nowMs`): the usage only counts, and nothing is renewed.
   */
  leaseId: string | null;
  /** Now (epoch ms), by the ledger's clock, as a Lease reads it: whether the lease is still held. */
  nowMs: number;
  /** The lease's new expiry (epoch ms): now plus the lease's term (LEASE_TTL_MS). */
  leaseExpiresAtMs: number;
  meter: MeterName;
  /** Micro-dollars (`spend`) or requests (`requests`, `legacy`) to count. */
  usage: bigint;
  limit: bigint;
  /**
   * The instant (epoch ms) after which nothing may change: past it the store
   * answers `late` and leaves counters, hold and queue as they were. The
   * caller stops waiting for the answer soon after; a record committed later
   * would be charged while its answer said it was not. Null: no bound.
   */
  commitByMs: number | null;
}

/** One holder's ask on its lease (see QuotaStore.lease). */
export interface LeaseCommand extends CounterKey {
  /** `lease:<holder id>:<meter>` (leaseHoldId): one hold per holder and meter, kept across grants. */
  holdId: string;
  meter: MeterName;
  /** What the call waiting on the answer must hold: granted whole, or (enforced) refused. */
  need: bigint;
  /** How much more than `need` the holder would take for its next calls. */
  want: bigint;
  /** Taken off the hold first, at most what it holds. */
  giveBack: bigint;
  limit: bigint;
  /** False: measured, never refused (legacy credentials). */
  enforce: boolean;
  nowMs: number;
  /** The hold's expiry once the answer leaves one. */
  expiresAtMs: number;
  /** What is granted beyond `need` is at most what is left divided by this. */
  shareDivisor: bigint;
}

/**
 * `missing`: the period's counters are not loaded (first use, or the store lost them).
 * A refusal's counters include what holds in flight took (`held`), which is why it was refused.
 */
export type ReserveOutcome = { kind: 'missing' } | { kind: 'reserved' | 'denied'; counters: Counters };
/**
 * `granted` (possibly nothing, for a renewal) or `denied` (enforced, and `need`
 * did not fit); `leaseHeld` is what the lease's hold holds after, null when
 * there is no hold. The counters include every hold, the lease's too.
 */
export type LeaseOutcome = { kind: 'missing' } | { kind: 'granted' | 'denied'; granted: bigint; leaseHeld: bigint | null; counters: Counters };
export type SettleOutcome =
  | { kind: 'missing' }
  | { kind: 'late' }
  /** `leaseRenewed`: the call's lease was still held, and now expires at the command's leaseExpiresAtMs. */
  | { kind: 'settled'; counters: Counters; creditsUsed: number; leaseRenewed: boolean };

/** A period's settled totals from Postgres, to load counters from. */
export interface PeriodTotals {
  used: Record<MeterName, bigint>;
  credits: bigint;
  /** The organization's own spend allowance (micro-dollars) in place of its plan's; absent: the plan's. */
  spendAllowance?: bigint;
}

/**
 * The per-organization counters of the current period: Redis in the stack,
 * memory in the embedded single-process mode. Every operation is atomic with
 * respect to the others, which is what keeps concurrent requests from running
 * an allowance past its limit.
 */
export interface QuotaStore {
  /** Holds the amount unless enforcement applies and it does not fit. */
  reserve(command: ReserveCommand): Promise<ReserveOutcome>;
  /**
   * Releases expired holds, takes `giveBack` off the holder's lease, then
   * (unless `need` and `want` are both 0: a renewal) grants `need` and a
   * share of what is left up to `need + want`, or refuses when enforcement
   * applies and `need` does not fit. Any answer that leaves a hold renews its
   * expiry; a hold left at 0 with nothing granted is removed.
   */
  lease(command: LeaseCommand): Promise<LeaseOutcome>;
  /**
   * Releases the hold (or takes the usage off the lease), counts the usage, consumes purchased credits past the
   * limit, and appends `record` to the record queue, all in one step.
   */
  settle(command: SettleCommand, record: string): Promise<SettleOutcome>;
  /**
   * The meter's counters, or undefined when the period is not loaded. Holds
   * expired by `nowMs` are given back first, so a read never counts as held a
   * lease nobody renewed.
   */
  counters(key: CounterKey, meter: MeterName, nowMs: number): Promise<Counters | undefined>;
  /** Loads the period from Postgres totals, unless another caller loaded it first. */
  rebuild(key: CounterKey, totals: PeriodTotals): Promise<void>;
  /**
   * Sets (or, with null, removes) the organization's own spend allowance on a
   * loaded period; false when it is not loaded. Announced to allowance-change
   * watchers either way (leases/changes.ts).
   */
  setSpendAllowance(key: CounterKey, micros: bigint | null): Promise<boolean>;
  /** Adds purchased credits to a loaded period; false when it is not loaded. Announced to allowance-change watchers either way. */
  addCredits(key: CounterKey, amount: bigint): Promise<boolean>;
  /**
   * Announces to every allowance-change watcher, of every ledger process on
   * the store, that the organization's allowance (EVERY_ORGANIZATION: any
   * organization's, a plan's limit in the catalog) changed or is wanted back:
   * its holders give back what their leases hold unused and ask anew.
   */
  announce(organizationId: string): Promise<void>;
}
