import './support/catalog';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { scrape, total } from '../support/prometheus';
import { counter, periodKeys, send } from './support/burst';
import { startE2e, type E2e } from './support/harness';
import { testCatalog } from './support/prices';

/**
 * A slice one edge replica holds unused is not lost to the calls of another
 * (docs/decisions.md#admission-and-allowance-leases): when what the allowance
 * has left cannot cover a call but another replica's slice could, the ledger
 * has the organization's holders give back what they hold unused and grants
 * the call. Leases last ten minutes here, and edge keeps an unused one for
 * most of that, so within the test a slice comes back only that way.
 */
jest.setTimeout(120_000);

let e2e: E2e;
let redis: Redis;

beforeAll(async () => {
  e2e = await startE2e('e2e_lease_reclaim', { replicas: { edge: 2 }, serviceEnv: { ledger: { LEASE_TTL_MS: '600000' } } });
  redis = createRedis(testRedisUrl());
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

const question = (text: string) => ({ model: 'sim-small', max_tokens: 8, messages: [{ role: 'user', content: text }] });

it("serves the whole allowance on one replica while the other holds a slice of it unused, then refuses on both", async () => {
  const caller = await e2e.seed({ plan: 'e2e_byok_drain', agent: { plan: 'e2e_byok_drain', providerKey: 'sk-e2e-byok-reclaim' } });
  const limit = BigInt(testCatalog.plans.get('e2e_byok_drain')?.byokRequestsPerMonth ?? 0);
  const { counters, holds } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
  const [holder, drainer] = e2e.stack.replicasOf('edge').map((edge) => `http://127.0.0.1:${edge.port}`);
  if (!holder || !drainer) throw new Error('the stack has one edge replica');

  expect((await send(holder, caller.key, question('Hello.'))).status).toBe(200);
  const leased = Object.entries(await redis.hgetall(holds)).filter(([id]) => id.startsWith('lease:'));
  expect(leased).toHaveLength(1);
  const [[holderLease, held] = ['', '']] = leased;
  // The first replica keeps a slice beyond its one call.
  expect(BigInt(held.split(':')[1] ?? '0')).toBeGreaterThan(0n);

  // Every other request of the allowance, one after another on the second replica: the last ones need the slice the first holds.
  const statuses: number[] = [];
  for (let call = 1n; call < limit; call += 1n) statuses.push((await send(drainer, caller.key, question(`Call ${call}.`))).status);
  expect(statuses).toEqual(Array.from({ length: Number(limit) - 1 }, () => 200));
  expect(await counter(redis, counters, 'requests_used')).toBe(limit);
  // The first replica gave back what it held unused, and the ledger counts the reclaim that got it.
  expect(await redis.hget(holds, holderLease)).toBeNull();
  const { samples } = await scrape(e2e.stack.services.ledger.metricsPort);
  expect(total(samples, 'ledger_lease_reclaims_total', { outcome: 'granted' })).toBeGreaterThanOrEqual(1);

  // Nothing is left: either replica refuses at once, with the counters that say so.
  for (const edge of [holder, drainer]) {
    const refusal = await send(edge, caller.key, question('One more.'));
    expect({ status: refusal.status, type: refusal.body.error?.type }).toEqual({ status: 402, type: 'quota' });
    expect({ used: refusal.headers.get('x-service-quota-used'), remaining: refusal.headers.get('x-service-quota-remaining') }).toEqual({
      used: String(limit),
      remaining: '0',
    });
  }
});
