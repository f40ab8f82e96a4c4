import './support/catalog';
import { parseUsd } from '@gateway/lib/money';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { counter, largeCall, periodKeys, send } from './support/burst';
import { eventually } from './support/eventually';
import { expectHeaderSet, nextPeriodStart, usdHeader } from './support/headers';
import { startE2e, type E2e } from './support/harness';
import { committedRecords } from './support/ledger';
import { testCatalog } from './support/prices';

/**
 * The overspend a fixed reservation let through: 200 simultaneous requests
 * with ~30k-token prompts to the most expensive model, against a $10
 * allowance, through two edge replicas. Each call holds its worst-case cost,
 * so the spend stays within the allowance in Redis, in Postgres and in the
 * headers, and every refusal is a 402 with retry-after.
 */
jest.setTimeout(300_000);

const BURST = 200;
let e2e: E2e;
let redis: Redis;

beforeAll(async () => {
  // Leases of 10 s: an idle replica gives its slice back 6.75 s after its last answer, which the last check waits for.
  e2e = await startE2e('e2e_burst', { replicas: { edge: 2 }, serviceEnv: { edge: { RPC_DEADLINE_MS: '30000' }, ledger: { LEASE_TTL_MS: '10000' } } });
  redis = createRedis(testRedisUrl());
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

it('spends no more than the allowance, whatever arrives at once', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  const allowance = testCatalog.plans.get('simulated')?.monthlyAllowanceMicros ?? 0n;
  expect(allowance).toBe(parseUsd('10'));
  const edges = e2e.stack.replicasOf('edge').map((edge) => `http://127.0.0.1:${edge.port}`);
  expect(edges).toHaveLength(2);

  const answers = await Promise.all(
    Array.from({ length: BURST }, (_, index) => send(edges[index % edges.length] ?? '', caller.key, largeCall(index))),
  );

  const served = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status !== 200);
  expect(served.length).toBeGreaterThanOrEqual(1);
  const secondsLeft = (nextPeriodStart().getTime() - Date.now()) / 1000;
  for (const answer of refused) {
    expect({ status: answer.status, type: answer.body.error?.type }).toEqual({ status: 402, type: 'quota' });
    expect(Math.abs(Number(answer.headers.get('retry-after')) - secondsLeft)).toBeLessThanOrEqual(60);
    expect(answer.body.error?.message).toMatch(/could cost up to \$\d+\.\d{6} .* and \$\d+\.\d{6} of this month's allowance is left/);
  }
  for (const answer of answers) expectHeaderSet(answer.headers);

  // The headers: the costs the clients were told, and the spend each answer reported.
  const told = served.reduce((sum, answer) => sum + usdHeader(answer.headers, 'x-service-cost-usd'), 0n);
  expect(told).toBeLessThanOrEqual(allowance);
  for (const answer of answers) expect(usdHeader(answer.headers, 'x-service-quota-spent-usd')).toBeLessThanOrEqual(allowance);

  // Postgres: one trace and one ledger entry per request, their sum what the clients were told.
  const { entries } = await committedRecords(e2e.ledger.db, caller.organizationId, BURST);
  expect(entries.reduce((sum, entry) => sum + BigInt(entry.amount_micros), 0n)).toBe(told);

  // Redis: the period's counters, nothing held once every call has settled and the replicas' idle leases went back.
  const { counters } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
  expect(await counter(redis, counters, 'spend_used')).toBe(told);
  await eventually(async () => ((await counter(redis, counters, 'spend_reserved')) === 0n ? true : undefined), 'the leases to be given back');
});
