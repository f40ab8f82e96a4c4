import './support/catalog';
import { openLedgerAdmin, type LedgerAdmin } from '@gateway/ledger/admin';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { counter, periodKeys, send } from './support/burst';
import { eventually } from './support/eventually';
import { usdHeader } from './support/headers';
import { startE2e, type E2e } from './support/harness';

/**
 * A change of an organization's allowance reaches edge's leases at once
 * (docs/decisions.md#admission-and-allowance-leases): the ledger names the organization on
 * WatchLeases, edge gives back what its lease holds unused and asks the ledger for the next call.
 * Leases last ten minutes here and edge keeps an unused one for most of that, so only the push can
 * bring the slice back.
 */
jest.setTimeout(120_000);

let e2e: E2e;
let redis: Redis;
let admin: LedgerAdmin;

beforeAll(async () => {
  e2e = await startE2e('e2e_lease_pushes', { serviceEnv: { ledger: { LEASE_TTL_MS: '600000' } } });
  redis = createRedis(testRedisUrl());
  admin = await openLedgerAdmin({ databaseUrl: e2e.databaseUrl, redisUrl: testRedisUrl(), keyPrefix: e2e.stack.ledgerKeyPrefix });
});

afterAll(async () => {
  await admin?.close();
  redis?.disconnect();
  await e2e?.close();
});

const question = { model: 'sim-small', max_tokens: 8, messages: [{ role: 'user', content: 'Hello.' }] };

it('gives back the slice of an organization whose allowance changed, and asks the ledger for its next call', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  const { counters } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
  const first = await send(e2e.stack.baseUrl, caller.key, question);
  expect(first.status).toBe(200);
  // Edge holds a slice beyond what the call used.
  expect(await counter(redis, counters, 'spend_reserved')).toBeGreaterThan(0n);

  // The operator lowers the allowance to what is spent: nothing is left for another call.
  const spent = usdHeader(first.headers, 'x-service-quota-spent-usd');
  await admin.setSpendAllowance(caller.organizationId, spent);
  await eventually(async () => ((await counter(redis, counters, 'spend_reserved')) === 0n ? true : undefined), 'the slice to come back');

  const second = await send(e2e.stack.baseUrl, caller.key, question);
  expect({ status: second.status, type: second.body.error?.type }).toEqual({ status: 402, type: 'quota' });
  expect(usdHeader(second.headers, 'x-service-quota-allowance-usd')).toBe(spent);
});
