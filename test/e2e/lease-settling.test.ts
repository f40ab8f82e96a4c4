import './support/catalog';
import { createRedis, type Redis } from '@gateway/lib/redis';
import { testRedisUrl } from '../support/databases';
import { counter, periodKeys, send } from './support/burst';
import { eventually } from './support/eventually';
import { usdHeader } from './support/headers';
import { startE2e, type Caller, type E2e } from './support/harness';
import { streamRaw } from './support/http';
import { simulatorDirective } from './support/simulator';

/**
 * Every call admitted against edge's lease is settled against it exactly
 * once, whatever its outcome: an answer, a provider error, a reset, a
 * timeout, a stream the provider drops, a stream its client walks away
 * from. Leases here last 4 s, so edge gives back what an unused one holds
 * about 2 s after its last answer; nothing comes back by expiry, since only
 * a Lease or a quota read sweeps an expired hold and none is made after the
 * calls: the allowance's holds come back to zero only if edge gave back
 * everything its calls left, which it does only once none is in flight.
 */
jest.setTimeout(120_000);

const PROVIDER_TIMEOUT_MS = 1500;
let e2e: E2e;
let redis: Redis;
let caller: Caller;

beforeAll(async () => {
  e2e = await startE2e('e2e_lease_settling', {
    serviceEnv: {
      edge: { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) },
      ledger: { LEASE_TTL_MS: '4000' },
      // Slow chunks: a client can walk away from a stream before its end.
      simulator: { STREAM_CHUNK_DELAY_MS: '100' },
    },
  });
  redis = createRedis(testRedisUrl());
  caller = await e2e.seed({ plan: 'simulated' });
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

const url = () => e2e.stack.baseUrl;
const question = (text: string) => ({ model: 'sim-small', max_tokens: 32, messages: [{ role: 'user', content: text }] });

/** Starts a stream and closes the connection once its first bytes arrived. */
async function walkAway(): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(`${url()}/api/gateway/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...question('Count to twenty, slowly.'), stream: true }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  await reader?.read();
  controller.abort();
  await reader?.cancel().catch(() => undefined);
}

it('settles every call against the lease once, whatever its outcome, and gives everything back once none is in flight', async () => {
  const { counters } = periodKeys(e2e.stack.ledgerKeyPrefix, caller.organizationId);
  const statuses = await Promise.all([
    send(url(), caller.key, question('Hello.')).then((answer) => answer.status),
    send(url(), caller.key, question(`Hi. ${simulatorDirective({ fail: 500 })}`)).then((answer) => answer.status),
    send(url(), caller.key, question(`Hi. ${simulatorDirective({ fail: 'reset' })}`)).then((answer) => answer.status),
    send(url(), caller.key, question(`Hi. ${simulatorDirective({ 'latency-ms': PROVIDER_TIMEOUT_MS * 4 })}`)).then((answer) => answer.status),
    streamRaw(`${url()}/api/gateway/v1/chat/completions`, { ...question('Stream.'), stream: true }, { authorization: `Bearer ${caller.key}` }).then((answer) => answer.status),
    streamRaw(`${url()}/api/gateway/v1/chat/completions`, { ...question(`Stream. ${simulatorDirective({ fail: 'midstream' })}`), stream: true }, { authorization: `Bearer ${caller.key}` }).then(
      (answer) => answer.status,
    ),
    walkAway().then(() => 200),
  ]);
  expect(statuses).toEqual([200, 502, 502, 504, 200, 200, 200]);
  // Something was leased and spent.
  expect(await counter(redis, counters, 'spend_used')).toBeGreaterThan(0n);
  await eventually(async () => ((await counter(redis, counters, 'spend_reserved')) === 0n ? true : undefined), 'every hold to come back');
});

it('gives a call admitted in memory the counters of the subject’s last Record answer, not those of the Lease before it', async () => {
  const fresh = await e2e.seed({ plan: 'simulated' });
  // The first call asks for the lease; its Record's answer renews it, with the counters after the call.
  const first = await send(url(), fresh.key, question('Hello.'));
  expect(first.status).toBe(200);
  const spentAfterFirst = usdHeader(first.headers, 'x-service-quota-spent-usd');
  expect(spentAfterFirst).toBeGreaterThan(0n);
  // A stream's headers leave before its own Record: they carry what the ledger last answered for the subject.
  const streamed = await streamRaw(`${url()}/api/gateway/v1/chat/completions`, { ...question('Stream.'), stream: true }, { authorization: `Bearer ${fresh.key}` });
  expect(streamed.status).toBe(200);
  expect(usdHeader(streamed.headers, 'x-service-quota-spent-usd')).toBe(spentAfterFirst);
});
