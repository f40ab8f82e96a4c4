import './support/catalog';
import { worstCaseOf } from '@gateway/lib/catalog';
import { ledgerKeys } from '@gateway/ledger/stores';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { scrape, total } from '../support/prometheus';
import { usdHeader } from './support/headers';
import { startE2e, type E2e } from './support/harness';
import { streamRaw } from './support/http';
import { testCatalog } from './support/prices';
import { simulatorDirective } from './support/simulator';

/**
 * What happens after the provider: one Record call per request, answered
 * once the record is in the ledger's durable stream (`x-service-metered:
 * true` means it is there), and quota headers that say what the ledger
 * knew when it answered: spent, remaining, and held by the calls in flight.
 */
jest.setTimeout(120_000);

let e2e: E2e;
let redis: Redis;

beforeAll(async () => {
  e2e = await startE2e('e2e_recording', { serviceEnv: { edge: { RPC_DEADLINE_MS: '10000' } } });
  redis = createRedis(testRedisUrl());
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

const body = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'sim-medium', max_tokens: 20, messages: [{ role: 'user', content }], ...extra });

async function post(key: string, sent: unknown): Promise<Response> {
  return fetch(`${e2e.gatewayUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(sent),
  });
}

/** The record is durable: in the ledger's stream, or already moved from it into Postgres. */
async function durablyRecorded(requestId: string): Promise<boolean> {
  const entries = await redis.xrange(ledgerKeys(e2e.stack.ledgerKeyPrefix).stream, '-', '+');
  if (entries.some(([, fields]) => fields.some((field) => field.includes(requestId)))) return true;
  const trace = await e2e.ledger.db.selectFrom('traces').select('request_id').where('request_id', '=', requestId).executeTakeFirst();
  return trace !== undefined;
}

it('records each request with one call after the provider, durable when x-service-metered says so', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  const records = async () => total((await scrape(e2e.stack.services.ledger.metricsPort)).samples, 'ledger_records_total');
  const before = await records();

  const json = await post(caller.key, body('Name three owls.'));
  await json.text();
  expect(json.headers.get('x-service-metered')).toBe('true');
  expect(await durablyRecorded(json.headers.get('x-service-request-id') ?? '')).toBe(true);

  const streamed = await streamRaw(`${e2e.gatewayUrl}/chat/completions`, body('Name three hawks.', { stream: true }), { authorization: `Bearer ${caller.key}` });
  expect(streamed.trailers.get('x-service-metered')).toBe('true');
  expect(await durablyRecorded(streamed.headers.get('x-service-request-id') ?? '')).toBe(true);

  const refused = await post(caller.key, body('Name three owls.', { model: 'no-such-model' }));
  await refused.text();
  expect(refused.status).toBe(400);

  // Three requests, three Record calls: one each, the refused request's included.
  expect((await records()) - before).toBe(3);
});

it('tells spent, remaining and what is held (calls in flight, leased slices), as the ledger knew it when it answered', async () => {
  const caller = await e2e.seed({ plan: 'simulated' });
  const model = testCatalog.models.get('sim-medium');
  if (!model) throw new Error('sim-medium is not in the test catalog');
  const slow = body(`Count slowly to five. ${simulatorDirective({ 'latency-ms': 3000 })}`);
  const slowCall = post(caller.key, slow);
  const addsUp = (headers: Headers) =>
    expect(['spent', 'held', 'remaining'].reduce((sum, name) => sum + usdHeader(headers, `x-service-quota-${name}-usd`), 0n)).toBe(
      usdHeader(headers, 'x-service-quota-allowance-usd'),
    );

  // Once the slow call holds its worst case, a quick call's answer reports it as held, with the
  // rest of the slice edge's lease holds for the calls after it.
  const slowWorstCase = worstCaseOf(slow, model).costMicros;
  let quick: Response | undefined;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    quick = await post(caller.key, body(`Say hello number ${attempt}.`));
    await quick.text();
    if (usdHeader(quick.headers, 'x-service-quota-held-usd') >= slowWorstCase) break;
  }
  if (!quick) throw new Error('no quick call was made');
  const heldThen = usdHeader(quick.headers, 'x-service-quota-held-usd');
  expect(heldThen).toBeGreaterThanOrEqual(slowWorstCase);
  addsUp(quick.headers);
  const spentThen = usdHeader(quick.headers, 'x-service-quota-spent-usd');
  expect(spentThen).toBeGreaterThan(0n);

  const slowAnswer = await slowCall;
  await slowAnswer.text();
  expect(slowAnswer.status).toBe(200);
  // Settled: its cost spent and off the lease; what it held beyond its cost stays with the lease,
  // unless the idle lease gave its unused slice back meanwhile.
  const cost = usdHeader(slowAnswer.headers, 'x-service-cost-usd');
  const spent = usdHeader(slowAnswer.headers, 'x-service-quota-spent-usd');
  expect(spent).toBe(spentThen + cost);
  const held = usdHeader(slowAnswer.headers, 'x-service-quota-held-usd');
  expect(held).toBeGreaterThanOrEqual(slowWorstCase - cost);
  expect(held).toBeLessThanOrEqual(heldThen - cost);
  addsUp(slowAnswer.headers);
});
