import { DomainError } from '@gateway/lib/errors';
import { createInProcessClient, type ServiceHandlers } from '@gateway/lib/grpc';
import { createLogger } from '@gateway/lib/logging';
import {
  LedgerServiceService,
  Meter,
  type LeaseRequest,
  type LeaseResponse,
  type Subject,
  type WatchLeasesResponse,
} from '@gateway/proto/gen/gateway/ledger/v1/ledger';
import { holdLeases, type Admission, type LeaseHolder, type LeaseSettings } from './leases';

const logger = createLogger({ service: 'test', level: 'silent' });
const VALID_FOR_MS = 10_000;

const subject = (organizationId = 'org-1'): Subject => ({
  organizationId,
  agentId: '',
  planTier: 'simulated',
  byok: false,
  messagesLimit: '0',
  enforce: true,
});

/**
 * The ledger's lease rule on one allowance, as edge's client sees it: give
 * back first, then `need` whole (or refused) and as much of `want` as is
 * left; Record is not modelled, the tests settle through the holder itself.
 */
function fakeLedger(allowance: bigint, { greet = false } = {}) {
  let held = 0n;
  let down = false;
  let failures = 0;
  let gate: Promise<void> | undefined;
  const leases: LeaseRequest[] = [];
  const pushes: string[] = [];
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const waker of wakers) waker();
  };
  let streamsOpened = 0;
  /** Moves on each `breakStreams`: a stream opened before fails. */
  let breaks = 0;
  const quota = () => ({
    meter: Meter.METER_SPEND,
    allowanceMicros: allowance.toString(),
    spentMicros: '0',
    remainingMicros: (allowance - held).toString(),
    limit: '0',
    used: '0',
    remaining: '0',
    credits: '0',
    hasCredits: false,
    heldMicros: held.toString(),
  });
  const unexpected = () => Promise.reject(new Error('the holder asks only Lease'));
  const handlers: ServiceHandlers<typeof LedgerServiceService> = {
    checkQuota: unexpected,
    record: unexpected,
    streamRecords: unexpected,
    getQuota: unexpected,
    lease: async (request): Promise<LeaseResponse> => {
      leases.push(request);
      await gate;
      if (down || failures > 0) {
        failures -= 1;
        throw new DomainError('unavailable', 'The ledger service is unavailable.');
      }
      held -= BigInt(request.giveBack);
      const need = BigInt(request.need);
      const left = allowance - held;
      if (need > left) return { granted: false, grantedAmount: '0', leaseId: 'lease-1', validForMs: VALID_FOR_MS, quota: quota(), retryAfterSeconds: 3600 };
      const extra = BigInt(request.want) < left - need ? BigInt(request.want) : left - need;
      held += need + extra;
      return { granted: true, grantedAmount: (need + extra).toString(), leaseId: 'lease-1', validForMs: VALID_FOR_MS, quota: quota(), retryAfterSeconds: 0 };
    },
    watchLeases: async function* (_request, { signal }): AsyncIterable<WatchLeasesResponse> {
      streamsOpened += 1;
      const opened = breaks;
      // As the ledger greets every stream: you may have missed something, ask anew.
      if (greet) yield { organizationId: '' };
      while (!signal.aborted) {
        if (breaks !== opened) throw new DomainError('unavailable', 'The ledger service is unavailable.');
        const organizationId = pushes.shift();
        if (organizationId !== undefined) yield { organizationId };
        else {
          await new Promise<void>((resolve) => {
            const done = () => {
              wakers.delete(done);
              signal.removeEventListener('abort', done);
              resolve();
            };
            wakers.add(done);
            signal.addEventListener('abort', done, { once: true });
          });
        }
      }
    },
  };
  return {
    client: createInProcessClient(LedgerServiceService, handlers, { serviceName: 'ledger', deadlineMs: 1000, logger }),
    leases,
    held: () => held,
    quota,
    setDown: (value: boolean) => (down = value),
    /** Fails the next `count` Lease calls, as a ledger replica killed under them. */
    failNext: (count: number) => (failures = count),
    /** Holds every Lease answer until the returned function is called. */
    hold: () => {
      let open: () => void = () => undefined;
      gate = new Promise<void>((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
    push: (organizationId: string) => {
      pushes.push(organizationId);
      wake();
    },
    streamsOpened: () => streamsOpened,
    /** Fails every WatchLeases stream open now, as a ledger replica killed under them. */
    breakStreams: () => {
      breaks += 1;
      wake();
    },
  };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
};

const settings: LeaseSettings = {
  sliceMicros: 1_000n,
  sliceRequests: 10n,
  safetyMarginMs: 1_000,
  tickMs: 1,
  watch: { initialBackoffMs: 1, maxBackoffMs: 1 },
};

/** What edge admits against of a lease, from the request (less the safety margin). */
const USABLE_MS = VALID_FOR_MS - settings.safetyMarginMs;

/** `count` calls of 100 that all miss while the first Lease is held unanswered; whether all were admitted once it is answered. */
async function burstOnOneLease(ledger: ReturnType<typeof fakeLedger>, leases: LeaseHolder, count: number): Promise<boolean> {
  const open = ledger.hold();
  const burst = Array.from({ length: count }, () => leases.admit(subject(), 'spend', 100n));
  await until(() => ledger.leases.length === 1);
  open();
  return (await Promise.all(burst)).every((admission) => admission.kind === 'admitted');
}

function admitted(admission: Admission): Extract<Admission, { kind: 'admitted' }> {
  if (admission.kind !== 'admitted') throw new Error(`expected an admission, got ${admission.kind}`);
  return admission;
}

describe('the allowance leases edge holds', () => {
  let now: number;
  /** How often the holder read its clock: every look-over of its leases does. */
  let clockReads: number;
  let holder: LeaseHolder | undefined;
  const start = (ledger: ReturnType<typeof fakeLedger>, overrides: Partial<LeaseSettings> = {}) => {
    const clock = () => {
      clockReads += 1;
      return now;
    };
    holder = holdLeases({ ledger: ledger.client, logger, settings: { ...settings, ...overrides }, clock });
    return holder;
  };
  /** Lets the holder look its leases over a few times at the clock as it stands. */
  const lookedOver = async () => {
    const from = clockReads;
    await until(() => clockReads >= from + 5);
  };
  beforeEach(() => {
    now = 1_000_000;
    clockReads = 0;
  });
  afterEach(async () => {
    await holder?.stop();
    holder = undefined;
  });

  it('admits in memory within the slice, and asks the ledger only when a call does not fit', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    const first = admitted(await leases.admit(subject(), 'spend', 300n));
    expect(ledger.leases).toHaveLength(1);
    expect(ledger.leases[0]).toMatchObject({ need: '300', want: '1000', giveBack: '0', holderId: leases.holderId });
    expect(first.leaseId).toBe('lease-1');
    expect(first.quota?.heldMicros).toBe('1300');
    // 1,300 granted: 300 + 300 + 300 + 300 fit, the fifth does not.
    for (let call = 0; call < 3; call += 1) admitted(await leases.admit(subject(), 'spend', 300n));
    expect(ledger.leases).toHaveLength(1);
    admitted(await leases.admit(subject(), 'spend', 300n));
    expect(ledger.leases).toHaveLength(2);
    // It gave back the 100 it could not use before asking for its need and the next slice.
    expect(ledger.leases[1]).toMatchObject({ need: '300', want: '1000', giveBack: '100' });
  });

  it('sends one Lease for a burst of calls that miss together, then admits them from its grant', async () => {
    const ledger = fakeLedger(100_000n);
    const leases = start(ledger, { sliceMicros: 5_000n });
    expect(await burstOnOneLease(ledger, leases, 50)).toBe(true);
    expect(ledger.leases).toHaveLength(1);
  });

  it('refuses only on the ledger answer, with its counters and retry-after', async () => {
    const ledger = fakeLedger(1_000n);
    const leases = start(ledger, { sliceMicros: 0n });
    admitted(await leases.admit(subject(), 'spend', 600n));
    // The slice is used up, but the ledger still has 400: a call of 400 is admitted, not refused by the slice.
    admitted(await leases.admit(subject(), 'spend', 400n));
    expect(ledger.leases).toHaveLength(2);
    const refused = await leases.admit(subject(), 'spend', 1n);
    expect(refused).toMatchObject({ kind: 'refused', retryAfterSeconds: 3600, quota: { remainingMicros: '0', heldMicros: '1000' } });
    expect(ledger.leases).toHaveLength(3);
  });

  it('refuses the calls that waited on a refused Lease and needed as much, without asking again', async () => {
    const ledger = fakeLedger(500n);
    const leases = start(ledger, { sliceMicros: 0n });
    const open = ledger.hold();
    const calls = [leases.admit(subject(), 'spend', 600n), leases.admit(subject(), 'spend', 700n), leases.admit(subject(), 'spend', 100n)];
    await until(() => ledger.leases.length === 1);
    open();
    const [first, larger, smaller] = await Promise.all(calls);
    expect([first?.kind, larger?.kind, smaller?.kind]).toEqual(['refused', 'refused', 'admitted']);
    // The smaller call asked for itself: a refusal of 600 says nothing of 100.
    expect(ledger.leases.map((lease) => lease.need)).toEqual(['600', '100']);
  });

  it('takes a finished call off what is in flight and counts what it used, once', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger, { sliceMicros: 0n });
    const call = admitted(await leases.admit(subject(), 'spend', 1_000n));
    call.finish(250n);
    call.finish(250n);
    // 750 of the 1,000 granted is free again: exactly that fits without a Lease, one micro-dollar more does not.
    admitted(await leases.admit(subject(), 'spend', 750n));
    expect(ledger.leases).toHaveLength(1);
    admitted(await leases.admit(subject(), 'spend', 1n));
    expect(ledger.leases).toHaveLength(2);
  });

  it('renews a lease a call was admitted against since its last answer, halfway to its end, giving nothing back', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject(), 'spend', 300n));
    now += USABLE_MS / 2;
    await until(() => ledger.leases.length === 2);
    expect(ledger.leases[1]).toMatchObject({ need: '0', want: '0', giveBack: '0' });
  });

  it('keeps a slice no call used for three-quarters of the lease, unrenewed, so a call then needs no Lease', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject(), 'spend', 300n)).finish(300n);
    now += USABLE_MS / 2;
    await until(() => ledger.leases.length === 2);
    // Past the renewed term's halfway point with no call since: it is not renewed again.
    now += USABLE_MS / 2;
    await lookedOver();
    expect(ledger.leases).toHaveLength(2);
    now += USABLE_MS / 4 - 1;
    admitted(await leases.admit(subject(), 'spend', 300n));
    expect(ledger.leases).toHaveLength(2);
  });

  it('gives back what a lease no call used for three-quarters of its term holds unused, and what its calls leave once they are over', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    const call = admitted(await leases.admit(subject(), 'spend', 300n));
    now += USABLE_MS / 2;
    await until(() => ledger.leases.length === 2);
    now += (USABLE_MS * 3) / 4;
    await until(() => ledger.leases.length === 3);
    expect(ledger.leases[2]).toMatchObject({ need: '0', want: '0', giveBack: '1000' });
    await until(() => ledger.held() === 300n);
    // What the finished call did not use is unused too, and goes back three-quarters of a term after the last answer.
    call.finish(200n);
    now += (USABLE_MS * 3) / 4;
    await until(() => ledger.leases.length === 4);
    expect(ledger.leases[3]).toMatchObject({ need: '0', giveBack: '100' });
    // What is left is what the call used, which its Record takes off the lease (not modelled here).
    await until(() => ledger.held() === 200n);
    admitted(await leases.admit(subject(), 'spend', 300n));
    expect(ledger.leases[4]).toMatchObject({ need: '300', giveBack: '0' });
  });

  it('takes the renewal a Record brought: a lease in steady use needs no Lease to renew it', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    const call = admitted(await leases.admit(subject(), 'spend', 300n));
    call.finish(300n);
    // The call's Record, sent just before the renewal point, renewed the lease at the ledger.
    now += USABLE_MS / 2 - 1;
    const recorded = ledger.quota();
    call.renewed(now, VALID_FOR_MS, { ...recorded, spentMicros: '300' });
    now += 1;
    await lookedOver();
    expect(ledger.leases).toHaveLength(1);
    // At the first term's end, admission goes on against the term the Record renewed, and carries its counters.
    now += USABLE_MS / 2;
    const next = admitted(await leases.admit(subject(), 'spend', 300n));
    expect(ledger.leases).toHaveLength(1);
    expect(next.quota?.spentMicros).toBe('300');
    // A Record answer older than that one (sent before it) moves neither the term nor the counters.
    call.renewed(now - USABLE_MS, VALID_FOR_MS, { ...recorded, spentMicros: '100' });
    expect(admitted(await leases.admit(subject(), 'spend', 300n)).quota?.spentMicros).toBe('300');
  });

  it('keeps renewing a lease while a call admitted against it is in flight', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger, { sliceMicros: 0n });
    const call = admitted(await leases.admit(subject(), 'spend', 300n));
    now += USABLE_MS / 2;
    await until(() => ledger.leases.length === 2);
    now += USABLE_MS / 2;
    await until(() => ledger.leases.length === 3);
    expect(ledger.leases[2]).toMatchObject({ need: '0', want: '0', giveBack: '0' });
    call.finish(300n);
  });

  it('stops admitting against a lease past its validity, counted from the request, and asks again', async () => {
    const ledger = fakeLedger(10_000n);
    // No renewal: the tick runs far less often than the test moves the clock.
    const leases = start(ledger, { tickMs: 60_000 });
    admitted(await leases.admit(subject(), 'spend', 300n));
    now += VALID_FOR_MS - settings.safetyMarginMs;
    admitted(await leases.admit(subject(), 'spend', 300n));
    // A new lease: nothing of the lapsed one is given back (the ledger takes it back at expiry).
    expect(ledger.leases).toHaveLength(2);
    expect(ledger.leases[1]).toMatchObject({ need: '300', giveBack: '0' });
  });

  it('gives back an organization\'s unused slices on a push, and asks the ledger for its next call', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject('org-1'), 'spend', 300n));
    admitted(await leases.admit(subject('org-2'), 'spend', 300n));
    ledger.push('org-1');
    await until(() => ledger.leases.length === 3);
    expect(ledger.leases[2]).toMatchObject({ subject: { organizationId: 'org-1' }, need: '0', giveBack: '1000' });
    admitted(await leases.admit(subject('org-1'), 'spend', 1n));
    expect(ledger.leases).toHaveLength(4);
    admitted(await leases.admit(subject('org-2'), 'spend', 1n));
    expect(ledger.leases).toHaveLength(4);
  });

  it('gives back every organization\'s unused slices on a push of none in particular (a stream that may have missed some)', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject('org-1'), 'spend', 300n));
    admitted(await leases.admit(subject('org-2'), 'spend', 300n));
    ledger.push('');
    await until(() => ledger.leases.length === 4);
    expect(ledger.leases.slice(2).map((lease) => [lease.subject?.organizationId, lease.need, lease.giveBack]).sort()).toEqual([
      ['org-1', '0', '1000'],
      ['org-2', '0', '1000'],
    ]);
    admitted(await leases.admit(subject('org-1'), 'spend', 1n));
    admitted(await leases.admit(subject('org-2'), 'spend', 1n));
    expect(ledger.leases).toHaveLength(6);
  });

  it('acts on a new stream\'s greeting only when it was without a stream: one replaced for its age while the old stood missed nothing', async () => {
    const ledger = fakeLedger(10_000n, { greet: true });
    const leases = start(ledger, { watch: { initialBackoffMs: 1, maxBackoffMs: 1, maxStreamAgeMs: 20, overlapMs: 5 } });
    // The first stream's greeting, with nothing held yet.
    await until(() => ledger.streamsOpened() === 1);
    await lookedOver();
    admitted(await leases.admit(subject('org-1'), 'spend', 300n));
    const opened = ledger.streamsOpened();
    // Three replacements, each new stream greeted while the one it replaced stood.
    await until(() => ledger.streamsOpened() >= opened + 3);
    await lookedOver();
    expect(ledger.leases).toHaveLength(1);
    admitted(await leases.admit(subject('org-1'), 'spend', 300n));
    expect(ledger.leases).toHaveLength(1);
    // A stream that failed: the next one's greeting may stand for pushes missed meanwhile.
    ledger.breakStreams();
    await until(() => ledger.leases.length === 2);
    expect(ledger.leases[1]).toMatchObject({ subject: { organizationId: 'org-1' }, need: '0', giveBack: '700' });
  });

  it('does the same on a release from a principal invalidation (a plan change)', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject(), 'spend', 300n));
    leases.release('org-1');
    await until(() => ledger.leases.length === 2);
    expect(ledger.leases[1]).toMatchObject({ need: '0', giveBack: '1000' });
  });

  it('lets a call through unenforced when the ledger cannot be asked, and admits within a held slice meanwhile', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject('org-1'), 'spend', 300n));
    ledger.setDown(true);
    admitted(await leases.admit(subject('org-1'), 'spend', 300n));
    expect(await leases.admit(subject('org-2'), 'spend', 300n)).toEqual({ kind: 'unavailable' });
    expect(ledger.leases.filter((lease) => lease.subject?.organizationId === 'org-2')).toHaveLength(2);
  });

  it('asks once more when a Lease fails, for the call that sent it and for the calls that waited on it', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger, { sliceMicros: 5_000n });
    ledger.failNext(1);
    expect(await burstOnOneLease(ledger, leases, 20)).toBe(true);
    expect(ledger.leases).toHaveLength(2);
  });

  it('asks for the requests slice on a counting meter', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit({ ...subject(), byok: true }, 'requests', 1n));
    expect(ledger.leases[0]).toMatchObject({ need: '1', want: '10' });
  });

  it('gives back what it holds unused when it stops', async () => {
    const ledger = fakeLedger(10_000n);
    const leases = start(ledger);
    admitted(await leases.admit(subject(), 'spend', 300n));
    await leases.stop();
    expect(ledger.held()).toBe(300n);
  });
});
