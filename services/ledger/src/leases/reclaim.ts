import { setTimeout as sleep } from 'node:timers/promises';

/** One try of a Lease against the store, as reclaiming reads it. */
export interface LeaseAttempt {
  granted: boolean;
  /** What the meter's other holds (other holders' leases, reservations) hold after it: the most that could come back. */
  othersHeld: bigint;
  /** What the allowance has left beyond every hold. */
  remaining: bigint;
}

/** The first wait after the announcement; each next one doubles, within the budget. */
const FIRST_RETRY_MS = 5;

/** Organizations, periods and meters remembered at most; the oldest is forgotten first. */
const REMEMBERED = 10_000;

/**
 * Per organization, period and meter, what the other holds held when this
 * process's last reclaim for it got nothing back. While they hold no less,
 * what they hold is not unused (calls in flight, or a dead replica's slice
 * until its lease expires), and a refused Lease is answered at once rather
 * than wait for give-backs that will not come.
 */
export class FruitlessReclaims {
  private readonly othersHeldAtLast = new Map<string, bigint>();

  worthWaiting(key: string, othersHeld: bigint): boolean {
    const before = this.othersHeldAtLast.get(key);
    return before === undefined || othersHeld < before;
  }

  remember(key: string, othersHeld: bigint): void {
    this.othersHeldAtLast.delete(key);
    if (this.othersHeldAtLast.size >= REMEMBERED) {
      const [oldest] = this.othersHeldAtLast.keys();
      if (oldest !== undefined) this.othersHeldAtLast.delete(oldest);
    }
    this.othersHeldAtLast.set(key, othersHeld);
  }

  forget(key: string): void {
    this.othersHeldAtLast.delete(key);
  }
}

export interface Reclaim<T extends LeaseAttempt> {
  /** The refused try. */
  refused: T;
  /** What the waiting call must hold. */
  need: bigint;
  /** The organization, period and meter, for FruitlessReclaims. */
  key: string;
  fruitless: FruitlessReclaims;
  /** How long the Lease may wait for give-backs, in all. */
  waitMs: number;
  /** Has every holder of the organization give back what its leases hold unused (WatchLeases). */
  announce(): Promise<void>;
  /** Tries the Lease again, with nothing more given back. */
  again(): Promise<T>;
}

/**
 * How a refused Lease that other holders' slices could have covered ended
 * (`ledger_lease_reclaims_total`): `granted` once they gave back enough,
 * `refused` when the wait ran out or the need could no longer fit,
 * `fruitless` answered at once because the last reclaim of the same
 * organization and meter got nothing back and the others hold no less,
 * `announce_failed` when the announcement could not be published.
 */
export type ReclaimOutcome = 'granted' | 'refused' | 'fruitless' | 'announce_failed';

/** The last try, and how the reclaim ended; no outcome when none was worth trying (a wait of 0, or nothing the others hold could fit). */
export interface Reclaimed<T extends LeaseAttempt> {
  attempt: T;
  outcome: ReclaimOutcome | undefined;
}

/** The other holds could cover what the allowance left cannot. */
const couldFit = (attempt: LeaseAttempt, need: bigint) => attempt.othersHeld > 0n && need <= attempt.remaining + attempt.othersHeld;

/**
 * A refused Lease whose need other holders' slices could cover
 * (docs/decisions.md#admission-and-allowance-leases): edge keeps a slice no
 * call used for most of a lease's term, so near the end of an allowance the
 * dollars a call needs may sit unused on another replica. The organization
 * is announced, every holder gives back what it holds unused, and the Lease
 * is tried again as the give-backs arrive, until it is granted, can no
 * longer fit, or the wait is over. Resolves to the last try and how it ended.
 */
export async function reclaimForLease<T extends LeaseAttempt>(reclaim: Reclaim<T>): Promise<Reclaimed<T>> {
  const { refused, need, key, fruitless } = reclaim;
  if (reclaim.waitMs <= 0 || !couldFit(refused, need)) return { attempt: refused, outcome: undefined };
  if (!fruitless.worthWaiting(key, refused.othersHeld)) return { attempt: refused, outcome: 'fruitless' };
  const announced = await reclaim.announce().then(
    () => true,
    () => false,
  );
  if (!announced) return { attempt: refused, outcome: 'announce_failed' };
  const deadline = Date.now() + reclaim.waitMs;
  let last = refused;
  for (let delayMs = FIRST_RETRY_MS; ; delayMs *= 2) {
    const waitMs = Math.min(delayMs, deadline - Date.now());
    if (waitMs <= 0) break;
    await sleep(waitMs);
    last = await reclaim.again();
    if (last.granted) {
      fruitless.forget(key);
      return { attempt: last, outcome: 'granted' };
    }
    if (!couldFit(last, need)) break;
  }
  fruitless.remember(key, last.othersHeld);
  return { attempt: last, outcome: 'refused' };
}
