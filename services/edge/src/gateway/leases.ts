import { randomUUID } from 'node:crypto';
import { EVERY_ORGANIZATION } from '@gateway/lib/allowance-changes';
import type { MeterName } from '@gateway/lib/catalog';
import type { PromiseClient } from '@gateway/lib/grpc';
import type { Logger } from '@gateway/lib/logging';
import { followStream, type Resubscribe } from '@gateway/lib/published';
import type { LeaseResponse, LedgerServiceService, QuotaState, Subject } from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { logDegraded } from './backends';

/** How edge holds its slices of the allowances (docs/decisions.md#admission-and-allowance-leases). */
export interface LeaseSettings {
  /** What a Lease asks beyond the call's need on the spend meter, in micro-dollars (EDGE_LEASE_SLICE_USD). */
  sliceMicros: bigint;
  /** The same on the requests and legacy meters, in requests (EDGE_LEASE_SLICE_REQUESTS). */
  sliceRequests: bigint;
  /**
   * Admission against a lease stops this long before the ledger's expiry, counted from when the
   * Lease was sent, so a slow renewal never leaves edge admitting against a hold that has lapsed.
   */
  safetyMarginMs: number;
  /** How often held leases are looked over: renewed, given back, dropped. */
  tickMs: number;
  /** How `WatchLeases` is subscribed again after it ended or failed. */
  watch: Resubscribe;
}

/**
 * Each new `WatchLeases` stream starts with the push for every organization, which has every
 * subject's next call ask the ledger again, so this stream is replaced only every five minutes
 * (lib's published/held.ts says why streams are replaced at all), and the stream it replaces is
 * kept for a few seconds after the new one's greeting: with a stream open throughout, no push
 * can have been missed, and that greeting is not acted on (see `watch` below).
 */
const LEASE_PUSHES_STREAM_AGE_MS = 5 * 60_000;
const LEASE_PUSHES_OVERLAP_MS = 5_000;

export const DEFAULT_LEASE_TIMING = {
  tickMs: 100,
  safetyMarginMs: 1000,
  watch: { initialBackoffMs: 100, maxBackoffMs: 5000, maxStreamAgeMs: LEASE_PUSHES_STREAM_AGE_MS, overlapMs: LEASE_PUSHES_OVERLAP_MS },
} as const;

/** What admission decided for one call. */
export type Admission =
  | {
      kind: 'admitted';
      /** For RecordRequest.lease_id. */
      leaseId: string;
      /** The ledger's counters as of the Lease answer this admission drew on. */
      quota: QuotaState | undefined;
      /** The call is over and its Record was sent: it no longer holds its need, and used `usage` of the lease. Once only. */
      finish(usage: bigint): void;
      /**
       * The ledger renewed the lease with this call's Record, sent at `sentAtMs`: it lasts
       * `validForMs` from then, so a lease in steady use needs no renewal of its own. `quota`,
       * the Record answer's counters, are what the subject's next calls admitted in memory carry.
       */
      renewed(sentAtMs: number, validForMs: number, quota: QuotaState | undefined): void;
    }
  | { kind: 'refused'; quota: QuotaState | undefined; retryAfterSeconds: number }
  /** The ledger could not be asked: the call goes through unenforced. */
  | { kind: 'unavailable' };

export interface LeaseHolder {
  /** This replica's id in the ledger's leases, new at each start. */
  readonly holderId: string;
  /** Admits a call that needs `need` (its worst-case cost on the spend meter, 1 on the others). */
  admit(subject: Subject, meter: MeterName, need: bigint): Promise<Admission>;
  /** The organization's allowance, plan or credits changed: give back what its leases hold unused, and ask anew. */
  release(organizationId: string): void;
  /** Stops renewing and listening, and gives back what is held unused. */
  stop(): Promise<void>;
}

/** One grant of the ledger's lease and what was done with it, from the answer that started it. */
interface Term {
  leaseId: string;
  granted: bigint;
  /** Usage of the admitted calls that are over, whose Record was sent. */
  consumed: bigint;
  /** Needs of the admitted calls not over yet. */
  inflight: bigint;
  givenBack: bigint;
  /** When the Lease whose answer last extended it was sent: a call admitted since keeps it renewed. */
  askedAtMs: number;
  /** By this replica's clock: no admission from then on. */
  validUntilMs: number;
  renewAtMs: number;
  /** With no call admitted since askedAtMs, what it holds unused goes back then. */
  returnAtMs: number;
}

type FlightResult = { kind: 'granted' } | { kind: 'refused'; need: bigint; quota: QuotaState | undefined; retryAfterSeconds: number } | { kind: 'unavailable' };

interface Entry {
  subject: Subject;
  /** What a Lease asks beyond a call's need: the slice of the subject's meter. */
  want: bigint;
  term: Term | undefined;
  /** When a call was last admitted against the lease (never: -Infinity). */
  lastAdmitMs: number;
  /** The counters of the last Lease answer, or of a Record answer that renewed the lease since. */
  quota: QuotaState | undefined;
  /** A push said the allowance changed: the next call asks the ledger whatever the lease holds. */
  askAgain: boolean;
  /** The one Lease call in flight for this subject; calls that miss wait on it rather than send their own. */
  flight: Promise<FlightResult> | undefined;
}

/** Why a Lease is sent: for a call that does not fit, to keep a lease in use, or to give back what is unused. */
type Ask = { kind: 'call'; need: bigint } | { kind: 'renew' } | { kind: 'giveBack' };
const RENEW: Ask = { kind: 'renew' };
const GIVE_BACK: Ask = { kind: 'giveBack' };

interface Flown {
  result: FlightResult;
  /** For a call's Lease: what it decided for that call. */
  admission?: Admission;
}

/**
 * Local validity ends a margin before the ledger's expiry (at most a quarter of the lease, so a
 * short one stays usable), counted from the request. A lease in use is renewed halfway to it; an
 * unused one is kept for three-quarters of it (a subject calling at least that often never waits
 * on a Lease), then gives back, well before the ledger's expiry.
 */
function validityOf(sentAtMs: number, validForMs: number, safetyMarginMs: number): Pick<Term, 'askedAtMs' | 'validUntilMs' | 'renewAtMs' | 'returnAtMs'> {
  const usableMs = validForMs - Math.min(safetyMarginMs, validForMs / 4);
  return { askedAtMs: sentAtMs, validUntilMs: sentAtMs + usableMs, renewAtMs: sentAtMs + usableMs / 2, returnAtMs: sentAtMs + (usableMs * 3) / 4 };
}

const UNAVAILABLE: Admission = { kind: 'unavailable' };

/** How many failed Leases a call sees (its own or those it waited on) before it goes through unenforced. */
const LEASE_ATTEMPTS = 2;

const available = (term: Term) => term.granted - term.consumed - term.inflight - term.givenBack;

/** The entry holds part of a live lease that no call uses and no Lease in flight is already settling. */
const holdsUnused = (entry: Entry, now: number) => !entry.flight && entry.term !== undefined && now < entry.term.validUntilMs && available(entry.term) > 0n;

/** Which lease a subject's calls draw on: one per organization and meter identity (its plan, BYOK, the legacy limit). */
const keyOf = (subject: Subject) => [subject.organizationId, subject.byok, subject.planTier, subject.messagesLimit].join('\u0000');

export interface LeaseHolderDeps {
  ledger: PromiseClient<typeof LedgerServiceService>;
  logger: Logger;
  settings: LeaseSettings;
  /** Milliseconds, for validity and idleness. */
  clock?: () => number;
}

/**
 * The leases one edge process holds: calls are admitted in memory against a
 * slice the ledger granted, and only a call that does not fit asks the ledger
 * (one Lease at a time per subject; the others wait for it and look again).
 * A refusal is always the ledger's answer, never the slice's.
 */
export function holdLeases({ ledger, logger, settings, clock = Date.now }: LeaseHolderDeps): LeaseHolder {
  const holderId = randomUUID();
  // Operators find this replica's slices in the ledger's holds by it (docs/runbook.md).
  logger.info({ lease_holder: holderId }, 'leasing allowances as this holder');
  const entries = new Map<string, Entry>();

  const take = (entry: Entry, term: Term, need: bigint): Admission => {
    term.inflight += need;
    entry.lastAdmitMs = clock();
    let finished = false;
    return {
      kind: 'admitted',
      leaseId: term.leaseId,
      quota: entry.quota,
      finish: (usage) => {
        if (finished) return;
        finished = true;
        term.inflight -= need;
        term.consumed += usage;
      },
      renewed: (sentAtMs, validForMs, quota) => {
        // One hold per holder and meter: what the Record renewed is what the entry's current term holds.
        const current = entry.term;
        if (!current || current.leaseId !== term.leaseId) return;
        const validity = validityOf(sentAtMs, validForMs, settings.safetyMarginMs);
        if (validity.validUntilMs <= current.validUntilMs) return;
        Object.assign(current, validity);
        // Only a Record sent after the answer that last extended the lease: counters never go back in time.
        if (quota) entry.quota = quota;
      },
    };
  };

  /** The answer to a Lease sent at sentAtMs; a call's grant is taken for it before anyone else looks. */
  const apply = (entry: Entry, answer: LeaseResponse, sentAtMs: number, ask: Ask): Flown => {
    entry.quota = answer.quota;
    let term = entry.term;
    const validity = validityOf(sentAtMs, answer.validForMs, settings.safetyMarginMs);
    const need = ask.kind === 'call' ? ask.need : 0n;
    if (!answer.granted) {
      if (term && term.leaseId === answer.leaseId && answer.validForMs > 0) Object.assign(term, validity);
      const refused = { quota: answer.quota, retryAfterSeconds: answer.retryAfterSeconds };
      return { result: { kind: 'refused', need, ...refused }, admission: { kind: 'refused', ...refused } };
    }
    // A lease that lapsed by this replica's clock is over: what the ledger still held of it comes back at its expiry.
    if (!term || term.leaseId !== answer.leaseId || sentAtMs >= term.validUntilMs) {
      term = { leaseId: answer.leaseId, granted: 0n, consumed: 0n, inflight: 0n, givenBack: 0n, ...validity };
      entry.term = term;
    }
    term.granted += BigInt(answer.grantedAmount);
    Object.assign(term, validity);
    return ask.kind === 'call' ? { result: { kind: 'granted' }, admission: take(entry, term, need) } : { result: { kind: 'granted' } };
  };

  const send = async (entry: Entry, ask: Ask): Promise<Flown> => {
    const sentAtMs = clock();
    const term = entry.term && sentAtMs < entry.term.validUntilMs ? entry.term : undefined;
    const unused = term ? available(term) : 0n;
    // A call that does not fit gives back what it cannot use, so the ledger weighs it against all that is left.
    const giveBack = ask.kind !== 'renew' && unused > 0n ? unused : 0n;
    const [need, want] = ask.kind === 'call' ? [ask.need, entry.want] : [0n, 0n];
    // Given back before the answer: nothing admits against it meanwhile, and if the answer never comes the ledger takes it back at expiry.
    if (term) term.givenBack += giveBack;
    entry.askAgain = false;
    try {
      const answer = await ledger.lease({ subject: entry.subject, holderId, need: need.toString(), want: want.toString(), giveBack: giveBack.toString() });
      return apply(entry, answer, sentAtMs, ask);
    } catch (error) {
      logDegraded(logger, error, 'allowance lease unavailable: serving unenforced');
      return { result: { kind: 'unavailable' }, admission: UNAVAILABLE };
    }
  };

  const fly = (entry: Entry, ask: Ask) => {
    const asked = send(entry, ask).finally(() => {
      if (entry.flight === flight) entry.flight = undefined;
    });
    const flight = asked.then(({ result }) => result);
    entry.flight = flight;
    return asked;
  };

  const entryFor = (subject: Subject, meter: MeterName): Entry => {
    const key = keyOf(subject);
    let entry = entries.get(key);
    if (!entry) {
      const want = meter === 'spend' ? settings.sliceMicros : settings.sliceRequests;
      entry = { subject, want, term: undefined, lastAdmitMs: Number.NEGATIVE_INFINITY, quota: undefined, askAgain: false, flight: undefined };
      entries.set(key, entry);
    }
    return entry;
  };

  /**
   * A Lease that failed (a ledger replica killed under it, a timeout) is
   * asked once more, by the call itself, before the call goes through
   * unenforced: another replica usually answers.
   */
  const admit = async (subject: Subject, meter: MeterName, need: bigint): Promise<Admission> => {
    const entry = entryFor(subject, meter);
    let failures = 0;
    for (;;) {
      const term = entry.term;
      if (term && !entry.askAgain && clock() < term.validUntilMs && available(term) >= need) return take(entry, term, need);
      if (entry.flight) {
        const result = await entry.flight;
        // The ledger refused as much or less, after everything unused here was given back: this call does not fit either.
        if (result.kind === 'refused' && need >= result.need) return { kind: 'refused', quota: result.quota, retryAfterSeconds: result.retryAfterSeconds };
        if (result.kind !== 'unavailable') continue;
      } else {
        const { admission = UNAVAILABLE } = await fly(entry, { kind: 'call', need });
        if (admission.kind !== 'unavailable') return admission;
      }
      if ((failures += 1) >= LEASE_ATTEMPTS) return UNAVAILABLE;
    }
  };

  /**
   * Renews leases in use (a call admitted since the last answer, or calls in flight) before they
   * lapse, gives back what idle and released ones hold unused, forgets the ones with nothing left.
   */
  const tick = () => {
    const now = clock();
    for (const [key, entry] of entries) {
      if (entry.flight) continue;
      const term = entry.term;
      if (!term || now >= term.validUntilMs) {
        if (!term || term.inflight === 0n) entries.delete(key);
        continue;
      }
      const admittedSinceAsked = entry.lastAdmitMs >= term.askedAtMs;
      const idle = !admittedSinceAsked && now >= term.returnAtMs;
      const unused = available(term);
      if (unused > 0n && (idle || entry.askAgain)) void fly(entry, GIVE_BACK);
      else if (idle && term.inflight === 0n) entries.delete(key);
      else if (now >= term.renewAtMs && (admittedSinceAsked || term.inflight > 0n)) void fly(entry, RENEW);
    }
  };
  const ticker = setInterval(tick, settings.tickMs);
  ticker.unref();

  const release = (organizationId: string) => {
    for (const entry of entries.values()) {
      if (organizationId !== EVERY_ORGANIZATION && entry.subject.organizationId !== organizationId) continue;
      entry.askAgain = true;
      if (holdsUnused(entry, clock())) void fly(entry, GIVE_BACK);
    }
  };

  const watch = followStream(
    {
      subscribe: (signal) => ledger.watchLeases({ holderId }, { signal }),
      onMessage: ({ organizationId }, { continued }) => {
        // A stream replaced while the old one still stood missed nothing: its greeting is not a
        // gap to make up for. Acting on it gave back every lease and had every subject's next call
        // wait on a Lease, all at once, every five minutes. What a ledger's own subscription to
        // the announcements missed, it announces to every stream itself (ledger's redis-changes.ts).
        if (continued && organizationId === EVERY_ORGANIZATION) return;
        release(organizationId);
      },
      // Every stream starts with EVERY_ORGANIZATION, so what was pushed while none was open is not missed.
      onFailure: (error) => logDegraded(logger, error, 'lease pushes stream failed: subscribing again'),
    },
    settings.watch,
  );

  return {
    holderId,
    admit,
    release,
    stop: async () => {
      clearInterval(ticker);
      watch.stop();
      const now = clock();
      const unusedHeld = [...entries.values()].filter((entry) => holdsUnused(entry, now));
      await Promise.allSettled(unusedHeld.map((entry) => fly(entry, GIVE_BACK)));
    },
  };
}
