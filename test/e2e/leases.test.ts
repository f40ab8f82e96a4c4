import './support/catalog';
import { parseUsd } from '@gateway/lib/money';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { counter, largeCall, periodKeys, send, type Answer } from './support/burst';
import { eventually } from './support/eventually';
import { expectHeaderSet, nextPeriodStart, usdHeader } from './support/headers';
import { startE2e, type E2e } from './support/harness';
import { testCatalog } from './support/prices';

/**
 * Allowance leases across processes (docs/decisions.md#admission-and-allowance-leases): two edge
 * replicas drain one allowance to exactly zero, and bursts against a $10 allowance stay within it
 * with a ledger replica killed mid-burst and with an edge replica killed while it holds a slice,
 * whose slice comes back once its lease expires. Leases expire after 3 s here, so that wait is short.
 */
jest.setTimeout(300_000);

const BURST = 200;
let e2e: E2e;
let redis: Redis;

beforeAll(async () => {
  e2e = await startE2e('e2e_leases', {
    replicas: { edge: 2, ledger: 2 },
    serviceEnv: {
      edge: { RPC_DEADLINE_MS: '30000' },
      // A killed ledger's writer leaves records pending: the other replica's writer takes them over after a second.
      ledger: { LEASE_TTL_MS: '3000', WRITER_CLAIM_IDLE_MS: '1000' },
    },
  });
  redis = createRedis(testRedisUrl());
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

const edgeUrls = () => e2e.stack.replicasOf('edge').map((edge) => `http://127.0.0.1:${edge.port}`);
const retryAfterIsNextMonth = (answer: Answer) => {
  const secondsLeft = (nextPeriodStart().getTime() - Date.now()) / 1000;
  expect(Math.abs(Number(answer.headers.get('retry-after')) - secondsLeft)).toBeLessThanOrEqual(60);
};

/** Every refusal a 402 `quota` with retry-after; the cost the served answers were told, within the allowance. */
function expectWithin(answers: Answer[], allowance: bigint): bigint {
  for (const answer of answers) {
    expectHeaderSet(answer.headers);
    if (answer.status === 200) continue;
    expect({ status: answer.status, type: answer.body.error?.type }).toEqual({ status: 402, type: 'quota' });
    retryAfterIsNextMonth(answer);
  }
  const served = answers.filter((answer) => answer.status === 200);
  expect(served.length).toBeGreaterThanOrEqual(1);
  const told = served.reduce((sum, answer) => sum + usdHeader(answer.headers, 'x-service-cost-usd'), 0n);
  expect(told).toBeLessThanOrEqual(allowance);
  for (const answer of answers) expect(usdHeader(answer.headers, 'x-service-quota-spent-usd')).toBeLessThanOrEqual(allowance);
  return told;
}

const nothingHeld = (counters: string, field: string) =>
  eventually(async () => ((await counter(redis, counters, field)) === 0n ? true : undefined), `${field} to come back to 0`);

describe('allowance leases across replicas', () => {
  it('lets two edge replicas drain one allowance to exactly zero', async () => {
    const caller = await e2e.seed({ plan: 'e2e_byok_drain', agent: { plan: 'e2e_byok_drain', providerKey: 'sk-e2e-byok-drain' } });
    const limit = BigInt(testCatalog.plans.get('e2e_byok_drain')?.byokRequestsPerMonth ?? 0);
    expect(limit).toBe(24n);
    const { counters } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
    const edges = edgeUrls();
    const answers: Array<Answer & { edge: string }> = [];
    // Rounds of simultaneous calls over both replicas until the ledger has counted the whole allowance
    // (a replica refused while the other still held a slice serves it in a later round).
    for (let round = 0; round < 20 && (await counter(redis, counters, 'requests_used')) < limit; round += 1) {
      const calls = Array.from({ length: 10 }, async (_, index) => {
        const edge = edges[index % edges.length] ?? '';
        const body = { model: 'sim-small', max_tokens: 8, messages: [{ role: 'user', content: `Call ${round}.${index}.` }] };
        return { edge, ...(await send(edge, caller.key, body)) };
      });
      answers.push(...(await Promise.all(calls)));
    }
    const served = answers.filter((answer) => answer.status === 200);
    expect(BigInt(served.length)).toBe(limit);
    for (const answer of answers) {
      expectHeaderSet(answer.headers);
      if (answer.status === 200) expect(answer.headers.get('x-service-mode')).toBe('byok');
      else {
        expect({ status: answer.status, type: answer.body.error?.type }).toEqual({ status: 402, type: 'quota' });
        retryAfterIsNextMonth(answer);
      }
    }
    // Both replicas served part of it.
    expect(new Set(served.map((answer) => answer.edge))).toEqual(new Set(edges));
    expect(await counter(redis, counters, 'requests_used')).toBe(limit);
    await nothingHeld(counters, 'requests_reserved');
    // Exactly zero left: the next call is refused by either replica, with the counters that say so.
    for (const edge of edges) {
      const refusal = await send(edge, caller.key, { model: 'sim-small', max_tokens: 8, messages: [{ role: 'user', content: 'One more.' }] });
      expect(refusal.status).toBe(402);
      expect({ used: refusal.headers.get('x-service-quota-used'), remaining: refusal.headers.get('x-service-quota-remaining') }).toEqual({
        used: String(limit),
        remaining: '0',
      });
    }
  });

  it('stays within the allowance through a burst with a ledger replica killed mid-burst', async () => {
    const caller = await e2e.seed({ plan: 'simulated' });
    const allowance = testCatalog.plans.get('simulated')?.monthlyAllowanceMicros ?? 0n;
    expect(allowance).toBe(parseUsd('10'));
    const { counters } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
    const edges = edgeUrls();
    const [, doomed] = e2e.stack.replicasOf('ledger');
    if (!doomed) throw new Error('the stack has one ledger replica');

    const burst = Promise.all(Array.from({ length: BURST }, (_, index) => send(edges[index % edges.length] ?? '', caller.key, largeCall(index))));
    // Mid-burst: once the replicas hold leases on the allowance.
    await eventually(async () => ((await counter(redis, counters, 'spend_reserved')) > 0n ? true : undefined), 'the burst to lease', 60_000, 5);
    await doomed.kill();
    const answers = await burst;

    const told = expectWithin(answers, allowance);
    expect(await counter(redis, counters, 'spend_used')).toBeLessThanOrEqual(allowance);
    // Postgres: every record the ledger said it took is there, and the sum is within the allowance too.
    const metered = answers.filter((answer) => answer.headers.get('x-service-metered') === 'true').length;
    const recorded = await eventually(async () => {
      const entries = await e2e.ledger.db.selectFrom('ledger_entries').select('amount_micros').where('organization_id', '=', caller.organizationId).execute();
      return entries.length >= metered ? entries.reduce((sum, entry) => sum + BigInt(entry.amount_micros), 0n) : undefined;
    }, 'the records the ledger took');
    expect(recorded).toBeLessThanOrEqual(allowance);
    expect(told).toBeLessThanOrEqual(allowance);
    // A Record lost with the killed replica leaves its usage held by the lease (edge counted it used) until the
    // lease expires: spent and held together stay within the allowance.
    expect((await counter(redis, counters, 'spend_used')) + (await counter(redis, counters, 'spend_reserved'))).toBeLessThanOrEqual(allowance);
  });

  it('stays within the allowance with an edge replica killed holding a slice, whose slice comes back at its lease expiry', async () => {
    const caller = await e2e.seed({ plan: 'simulated' });
    const allowance = testCatalog.plans.get('simulated')?.monthlyAllowanceMicros ?? 0n;
    const { counters, holds, expiries } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
    const [survivor, doomed] = e2e.stack.replicasOf('edge');
    if (!survivor || !doomed) throw new Error('the stack has one edge replica');

    // The doomed replica leases a slice for one small call, and dies before its idle lease goes back.
    const warm = await send(`http://127.0.0.1:${doomed.port}`, caller.key, { model: 'sim-small', max_tokens: 8, messages: [{ role: 'user', content: 'Hello.' }] });
    await doomed.kill();
    expect(warm.status).toBe(200);
    const leased = Object.entries(await redis.hgetall(holds)).filter(([id]) => id.startsWith('lease:'));
    expect(leased).toHaveLength(1);
    const [[doomedLease, doomedHold] = ['', '']] = leased;
    const slice = BigInt(doomedHold.split(':')[1] ?? '0');
    expect(slice).toBeGreaterThan(0n);

    const answers = await Promise.all(Array.from({ length: BURST }, (_, index) => send(`http://127.0.0.1:${survivor.port}`, caller.key, largeCall(index))));
    const told = expectWithin(answers, allowance);
    expect(told + usdHeader(warm.headers, 'x-service-cost-usd')).toBeLessThanOrEqual(allowance);
    expect(await counter(redis, counters, 'spend_used')).toBeLessThanOrEqual(allowance);

    // The dead replica's lease expires (by the ledger's clock, in Redis); the next Lease sweeps it and its slice is
    // back: once the survivor's own idle lease has gone back too, nothing stays held.
    await eventually(async () => {
      const expiresAt = await redis.zscore(expiries, doomedLease);
      return expiresAt === null || Number(expiresAt) < Date.now() ? true : undefined;
    }, "the dead replica's lease to expire", 30_000);
    // And the survivor gave back its own idle slice, so its next call asks the ledger rather than admit from it.
    await eventually(async () => {
      const doomedNow = BigInt((await redis.hget(holds, doomedLease))?.split(':')[1] ?? '0');
      return (await counter(redis, counters, 'spend_reserved')) === doomedNow ? true : undefined;
    }, "the survivor's idle lease to go back");
    const after = await send(`http://127.0.0.1:${survivor.port}`, caller.key, { model: 'sim-small', max_tokens: 8, messages: [{ role: 'user', content: 'Still there?' }] });
    expect(after.status).toBe(200);
    expect(await redis.hexists(holds, doomedLease)).toBe(0);
    await nothingHeld(counters, 'spend_reserved');
    expect(await counter(redis, counters, 'spend_used')).toBeLessThanOrEqual(allowance);
  });
});
