import { readFileSync, writeFileSync } from 'node:fs';
import { DomainError } from '@gateway/lib/errors';
import { testRedisUrl } from '../../../test/support/databases';
import { scrape, total } from '../../../test/support/prometheus';
import type { ServiceProcess } from '../../../test/support/processes';
import { openLedgerAdmin, type LedgerAdmin } from '../src/admin';
import { currentPeriodKey, openLedgerSuite, recordOf, scrapeMetric, subject, type LedgerClient, type LedgerSuite } from './support/ledger';

/** Lease, Record against a lease, and WatchLeases on a real ledger process over real Postgres and Redis. */
describe('ledger leases', () => {
  let suite: LedgerSuite;
  let ledger: ServiceProcess;
  let client: LedgerClient;
  let admin: LedgerAdmin;

  beforeAll(async () => {
    suite = await openLedgerSuite('leases');
    ({ ledger, client } = await suite.start());
    admin = await openLedgerAdmin({ databaseUrl: suite.database.url, redisUrl: testRedisUrl(), keyPrefix: suite.prefix });
  });

  afterAll(async () => {
    await admin?.close();
    await suite?.close();
  });

  const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

  it('grants a slice, settles a call against it, and refuses a need past what is left', async () => {
    // The tiny plan: 1,000 micro-dollars a month.
    const who = subject();
    const granted = await client.lease({ subject: who, holderId: 'edge-1', need: '100', want: '1000', giveBack: '0' });
    expect(granted).toMatchObject({
      granted: true,
      // A quarter of the 1,000 left.
      grantedAmount: '250',
      leaseId: `${currentPeriodKey()}:lease:edge-1:spend`,
      validForMs: 30_000,
      retryAfterSeconds: 0,
      quota: { allowanceMicros: '1000', spentMicros: '0', heldMicros: '250', remainingMicros: '750' },
    });

    const recorded = await client.record(recordOf(who, { leaseId: granted.leaseId, costMicros: '100' }));
    // The Record renewed the lease it drew on.
    expect(recorded).toMatchObject({ accepted: true, quota: { spentMicros: '100', heldMicros: '150', remainingMicros: '750' }, leaseValidForMs: 30_000 });

    const refused = await client.lease({ subject: who, holderId: 'edge-2', need: '751', want: '0', giveBack: '0' });
    expect(refused).toMatchObject({ granted: false, grantedAmount: '0', leaseId: '', quota: { remainingMicros: '750' } });
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);

    // Given back whole: nothing is held, and no lease is named.
    await expect(client.lease({ subject: who, holderId: 'edge-1', need: '0', want: '0', giveBack: '150' })).resolves.toMatchObject({
      granted: true,
      leaseId: '',
      quota: { spentMicros: '100', heldMicros: '0', remainingMicros: '900' },
    });
  });

  it('has the holders give back what they hold unused when only that could cover a need, and waits again only once they hold less', async () => {
    const who = subject();
    const other = subject();
    const abort = new AbortController();
    const pushes: string[] = [];
    let opened: () => void = () => undefined;
    const open = new Promise<void>((resolve) => (opened = resolve));
    // edge-1, as edge does it: on a push for the organization, it gives back what its lease holds unused.
    let unused = 0n;
    const holder = (async () => {
      for await (const { organizationId } of client.watchLeases({ holderId: 'edge-1' }, { signal: abort.signal })) {
        pushes.push(organizationId);
        if (organizationId === '') opened();
        if (organizationId !== who.organizationId || unused === 0n) continue;
        const giveBack = unused;
        unused = 0n;
        await client.lease({ subject: who, holderId: 'edge-1', need: '0', want: '0', giveBack: giveBack.toString() });
      }
    })().catch(() => undefined);
    // One scrape reads every outcome.
    const reclaims = async () => {
      const { samples } = await scrape(ledger.metricsPort);
      const count = (outcome: string) => total(samples, 'ledger_lease_reclaims_total', { outcome });
      return { granted: count('granted'), refused: count('refused'), fruitless: count('fruitless') };
    };
    const before = await reclaims();
    try {
      await open;
      // The tiny plan's 1,000: edge-1 holds 250 of it, unused.
      await expect(client.lease({ subject: who, holderId: 'edge-1', need: '100', want: '1000', giveBack: '0' })).resolves.toMatchObject({ grantedAmount: '250' });
      unused = 250n;
      // 900 fits only with edge-1's slice: it is given back, and the need granted.
      await expect(client.lease({ subject: who, holderId: 'edge-2', need: '900', want: '0', giveBack: '0' })).resolves.toMatchObject({
        granted: true,
        grantedAmount: '900',
        quota: { heldMicros: '900', remainingMicros: '100' },
      });
      // 150 would fit only with edge-2's 900, which edge-2 does not give back (its calls hold it): refused once the wait is over...
      await expect(client.lease({ subject: who, holderId: 'edge-3', need: '150', want: '0', giveBack: '0' })).resolves.toMatchObject({ granted: false });
      // ... and at once the next time, the others holding no less: no announcement, no wait.
      await expect(client.lease({ subject: who, holderId: 'edge-3', need: '150', want: '0', giveBack: '0' })).resolves.toMatchObject({ granted: false });
      // Another organization's reclaim is announced after it; the one announcement of `who` for edge-3 came before.
      await client.lease({ subject: other, holderId: 'edge-1', need: '1000', want: '0', giveBack: '0' });
      await client.lease({ subject: other, holderId: 'edge-2', need: '1', want: '0', giveBack: '0' });
      while (!pushes.includes(other.organizationId)) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(pushes).toEqual(['', who.organizationId, who.organizationId, other.organizationId]);
      // Each refused Lease the others' slices could have covered is counted by how its reclaim ended.
      const after = await reclaims();
      expect({
        granted: after.granted - before.granted,
        refused: after.refused - before.refused,
        fruitless: after.fruitless - before.fruitless,
      }).toEqual({ granted: 1, refused: 2, fruitless: 1 });
    } finally {
      abort.abort();
      await holder;
    }
  });

  it('names the field of a bad ask', async () => {
    const error = await rejection(client.lease({ subject: subject(), holderId: '', need: '1', want: '0', giveBack: '0' }));
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'validation', field: 'holder_id' });
    await expect(rejection(client.lease({ subject: subject(), holderId: 'edge-1', need: '-1', want: '0', giveBack: '0' }))).resolves.toMatchObject({
      kind: 'validation',
      field: 'need',
    });
    await expect(
      rejection(client.lease({ subject: subject(), holderId: 'edge-1', need: '0', want: '9007199254740992', giveBack: '0' })),
    ).resolves.toMatchObject({ kind: 'validation', field: 'want' });
    await expect(rejection(client.record(recordOf(subject(), { leaseId: 'edge-1' })))).resolves.toMatchObject({ kind: 'validation', field: 'lease_id' });
    const reservedAndLeased = recordOf(subject(), { leaseId: `${currentPeriodKey()}:lease:edge-1:spend` });
    await expect(rejection(client.record({ ...reservedAndLeased, reservationId: `${currentPeriodKey()}:${reservedAndLeased.requestId}` }))).resolves.toMatchObject({
      kind: 'validation',
      field: 'lease_id',
    });
  });

  it('starts a WatchLeases stream with every organization, then tells it of a credit grant made through the admin path', async () => {
    const abort = new AbortController();
    const changes = client.watchLeases({ holderId: 'edge-1' }, { signal: abort.signal })[Symbol.asyncIterator]();
    try {
      // The first message (no organization: the holder may have missed some) means the stream is open on the ledger.
      await expect(changes.next()).resolves.toEqual({ done: false, value: { organizationId: '' } });
      expect(await scrapeMetric(ledger, 'ledger_lease_watchers')).toBe(1);
      const { organizationId } = subject();
      // Announced from another process.
      await admin.grantCredits({ organizationId, amount: 5 });
      await expect(changes.next()).resolves.toEqual({ done: false, value: { organizationId } });
    } finally {
      abort.abort();
    }
  });

  it('takes a plan limit changed in its catalog file without a restart, and tells every lease holder to ask anew', async () => {
    const who = subject();
    await expect(client.getQuota({ subject: who })).resolves.toMatchObject({ quota: { allowanceMicros: '1000' } });
    const abort = new AbortController();
    const changes = client.watchLeases({ holderId: 'edge-1' }, { signal: abort.signal })[Symbol.asyncIterator]();
    const shipped = readFileSync(suite.catalogPath, 'utf8');
    try {
      await expect(changes.next()).resolves.toEqual({ done: false, value: { organizationId: '' } });
      const catalog = JSON.parse(shipped) as { plans: Record<string, Record<string, unknown>> };
      writeFileSync(suite.catalogPath, JSON.stringify({ ...catalog, plans: { ...catalog.plans, tiny: { ...catalog.plans.tiny, monthly_allowance_usd: '0.002' } } }));
      // Every organization: the leases out were sized by the old limit.
      await expect(changes.next()).resolves.toEqual({ done: false, value: { organizationId: '' } });
      await expect(client.getQuota({ subject: who })).resolves.toMatchObject({ quota: { allowanceMicros: '2000', remainingMicros: '2000' } });
      await expect(client.lease({ subject: who, holderId: 'edge-1', need: '1', want: '4000', giveBack: '0' })).resolves.toMatchObject({ grantedAmount: '500' });
    } finally {
      abort.abort();
      // A case added after this one finds the suite's catalog as it was.
      writeFileSync(suite.catalogPath, shipped);
    }
  });
});
