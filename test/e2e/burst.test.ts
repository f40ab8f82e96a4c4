import './support/catalog';
import { ledgerKeys } from '@gateway/ledger/stores';
import { parseUsd } from '@gateway/lib/money';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { expectHeaderSet, nextPeriodStart, usdHeader } from './support/headers';
import { startE2e, type E2e } from './support/harness';
import { committedRecords } from './support/ledger';
import { testCatalog } from './support/prices';
import { simulatorDirective } from './support/simulator';

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
  e2e = await startE2e('e2e_burst', { replicas: { edge: 2 }, serviceEnv: { edge: { RPC_DEADLINE_MS: '30000' } } });
  redis = createRedis(testRedisUrl());
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

/** The catalog's most expensive simulated model, by the price of a million tokens in and out. */
function mostExpensiveSimulatedModel(): string {
  const simulated = [...testCatalog.models.values()].filter((model) => model.provider === 'simulator');
  simulated.sort((a, b) => Number(b.inputMicrosPerMillion + b.outputMicrosPerMillion - (a.inputMicrosPerMillion + a.outputMicrosPerMillion)));
  const [first] = simulated;
  if (!first) throw new Error('the test catalog has no simulated model');
  return first.id;
}

/** About 30,000 tokens of varied prose (o200k_base counts a short English word and its space as one token). */
function largePrompt(seed: number): string {
  const words = ['ledger', 'allowance', 'gateway', 'request', 'model', 'token', 'price', 'month', 'edge', 'replica', 'quota', 'stream'];
  return Array.from({ length: 30_000 }, (_, index) => words[(index * 7 + seed) % words.length]).join(' ');
}

interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { type?: string; message?: string } };
}

async function send(baseUrl: string, key: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${baseUrl}/api/gateway/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
}

it('spends no more than the allowance, whatever arrives at once', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  const allowance = testCatalog.plans.get('simulated')?.monthlyAllowanceMicros ?? 0n;
  expect(allowance).toBe(parseUsd('10'));
  const model = mostExpensiveSimulatedModel();
  const edges = e2e.stack.replicasOf('edge').map((edge) => `http://127.0.0.1:${edge.port}`);
  expect(edges).toHaveLength(2);

  const answers = await Promise.all(
    Array.from({ length: BURST }, (_, index) =>
      send(edges[index % edges.length] ?? '', caller.key, {
        model,
        // Slow answers keep the admitted calls in flight together.
        messages: [{ role: 'user', content: `${largePrompt(index)} ${simulatorDirective({ 'latency-ms': 500 })}` }],
      }),
    ),
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

  // Redis: the period's counters, nothing held once every call has settled.
  const period = nextPeriodStart();
  period.setUTCMonth(period.getUTCMonth() - 1);
  const counters = ledgerKeys(e2e.stack.ledgerKeyPrefix).counters({
    organizationId: caller.organizationId,
    period: period.toISOString().slice(0, 7),
  });
  const [spent, held] = await redis.hmget(counters, 'spend_used', 'spend_reserved');
  expect(BigInt(spent ?? 'NaN')).toBe(told);
  expect(BigInt(held ?? 'NaN')).toBe(0n);
});
