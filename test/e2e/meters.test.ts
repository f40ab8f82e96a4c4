import './support/catalog';
import { issueAgentGatewayToken, issueAgentSecret } from '@gateway/auth/admin';
import { grantCredits } from '@gateway/ledger/credits';
import { ledgerKeys, RedisQuotaStore } from '@gateway/ledger/stores';
import { worstCaseOf } from '@gateway/lib/catalog';
import { formatUsd, parseUsd } from '@gateway/lib/money';
import { createRedis, type Redis } from '@gateway/lib/redis';
import type OpenAI from 'openai';
import { testRedisUrl } from '../support/databases';
import { expectApiError, expectHeaderSet, failure, nextPeriodStart, usdHeader } from './support/headers';
import { startE2e, type E2e } from './support/harness';
import { committedRecords } from './support/ledger';
import { testCatalog } from './support/prices';
import { simulatorDirective, simulatorStats } from './support/simulator';

/**
 * The meters of docs/api.md#limits-and-allowances through the gateway: the spend allowance and its 402
 * with retry-after, each call held at its worst-case cost, the requests
 * meter of BYOK keys and purchased credits, the legacy meter (legacy
 * credentials measured, never blocked; API keys blocked), and 50
 * simultaneous requests against an allowance that fits a few worst cases.
 */
jest.setTimeout(90_000);

let e2e: E2e;
let redis: Redis;

beforeAll(async () => {
  e2e = await startE2e('e2e_meters', {
    serviceEnv: {
      // A quota check that timed out would let a call through unchecked (degradation, tested elsewhere): give it ample time.
      edge: { RPC_DEADLINE_MS: '10000' },
    },
  });
  redis = createRedis(testRedisUrl());
});

afterAll(async () => {
  redis?.disconnect();
  await e2e?.close();
});

function planAllowance(plan: string): bigint {
  const allowance = testCatalog.plans.get(plan)?.monthlyAllowanceMicros;
  if (allowance === undefined) throw new Error(`plan ${plan} has no spend allowance`);
  return allowance;
}

/**
 * A 402 `quota` whose retry-after is the time left until the next UTC month,
 * and whose headers say why: on the spend meter, spent + held + remaining is
 * the allowance, and the message names the call's worst case, more than the
 * remaining it names too.
 */
function expectQuotaRefusal(error: unknown): Headers {
  const { headers, body } = expectApiError(error, 402, 'quota');
  expect(body.message).toMatch(/allowance/i);
  if (headers.get('x-service-quota-meter') === 'spend') {
    const [spent, held, remaining] = ['spent', 'held', 'remaining'].map((name) => usdHeader(headers, `x-service-quota-${name}-usd`)) as [bigint, bigint, bigint];
    expect(spent + held + remaining).toBe(usdHeader(headers, 'x-service-quota-allowance-usd'));
    const [worstCase, left] = [...body.message.matchAll(/\$(\d+\.\d{6})/g)].map(([, usd]) => parseUsd(usd!));
    expect(left).toBe(remaining);
    expect(worstCase).toBeGreaterThan(remaining);
  } else {
    expect(headers.has('x-service-quota-held')).toBe(true);
    expect(headers.get('x-service-quota-remaining')).toBe('0');
  }
  const secondsLeft = (nextPeriodStart().getTime() - Date.now()) / 1000;
  expect(Math.abs(Number(headers.get('retry-after')) - secondsLeft)).toBeLessThanOrEqual(5);
  return headers;
}

function countQuota(headers: Headers) {
  return {
    meter: headers.get('x-service-quota-meter'),
    limit: headers.get('x-service-quota-limit'),
    used: headers.get('x-service-quota-used'),
    remaining: headers.get('x-service-quota-remaining'),
    credits: headers.get('x-service-quota-credits'),
  };
}

/** A small output limit keeps the worst case of a question within the tiny allowances. */
const question = (text: string): OpenAI.ChatCompletionCreateParamsNonStreaming => ({
  model: 'sim-medium',
  max_tokens: 16,
  messages: [{ role: 'user', content: text }],
});

/** What the gateway holds for a call to a named model: the worst case of the body it sends upstream. */
function worstCaseMicros(body: OpenAI.ChatCompletionCreateParamsNonStreaming): bigint {
  const model = testCatalog.models.get(body.model);
  if (!model) throw new Error(`model ${body.model} is not in the test catalog`);
  return worstCaseOf(body, model).costMicros;
}

describe('the spend meter', () => {
  it('counts dollars spent in the quota headers and refuses with 402 once the allowance is used up', async () => {
    const caller = await e2e.seed({ plan: 'e2e_spend_tiny' });
    const client = e2e.client(caller.key);
    const allowance = planAllowance('e2e_spend_tiny');
    let spent = 0n;
    let refusal: unknown;
    let worstCase = 0n;
    for (let call = 0; call < 30 && refusal === undefined; call += 1) {
      const body = question(`Tell me fact number ${call} about owls.`);
      worstCase = worstCaseMicros(body);
      try {
        const { response } = await client.chat.completions.create(body).withResponse();
        const headers = response.headers;
        expectHeaderSet(headers);
        // Admitted only while the worst case still fitted.
        expect(spent + worstCase).toBeLessThanOrEqual(allowance);
        spent += usdHeader(headers, 'x-service-cost-usd');
        expect({
          meter: headers.get('x-service-quota-meter'),
          allowance: usdHeader(headers, 'x-service-quota-allowance-usd'),
          spent: usdHeader(headers, 'x-service-quota-spent-usd'),
        }).toEqual({ meter: 'spend', allowance, spent });
      } catch (error) {
        refusal = error;
      }
    }

    const headers = expectQuotaRefusal(refusal);
    // Refused exactly when the next worst case no longer fits, and the message names both figures.
    expect(spent + worstCase).toBeGreaterThan(allowance);
    expect(expectApiError(refusal, 402, 'quota').body.message).toContain(`up to $${formatUsd(worstCase)}`);
    expect(expectApiError(refusal, 402, 'quota').body.message).toContain(`$${formatUsd(allowance - spent)} of this month's allowance is left`);
    expect(expectApiError(refusal, 402, 'quota').body.message).toMatch(/max_completion_tokens/);
    expect(usdHeader(headers, 'x-service-quota-spent-usd')).toBe(spent);
    expect(headers.get('x-service-quota-meter')).toBe('spend');

    // It stays refused, and a refused call never reaches the provider.
    const before = (await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions;
    expectQuotaRefusal(await failure(client.chat.completions.create(question('One more?'))));
    expect((await simulatorStats(e2e.stack.simulatorUrl)).requests.chatCompletions).toBe(before);
  });

  it('holds 50 simultaneous requests to what the allowance admits, never past it', async () => {
    const request = {
      model: 'sim-small',
      seed: 5,
      max_tokens: 10,
      // Slow answers keep the admitted calls in flight together.
      messages: [{ role: 'user' as const, content: `Count to three. ${simulatorDirective({ 'latency-ms': 1000 })}` }],
    };
    const worstCase = worstCaseMicros(request);
    const caller = await e2e.seed({ plan: 'e2e_concurrency' });
    const client = e2e.client(caller.key);
    const allowance = planAllowance('e2e_concurrency');
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => client.chat.completions.create(request).withResponse()));
    const admitted = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.response.headers] : []));
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));

    // Each admitted call held its worst case until it settled at its cost (no more). How many were
    // admitted depends on how many overlapped (one that settled early frees all but its cost), so
    // what is checked is the money: fifty calls cost more than the allowance, some were refused, and
    // what was spent never passed it.
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    const costs = admitted.map((headers) => {
      // Checked and recorded, not let through by a degraded ledger.
      expect({ meter: headers.get('x-service-quota-meter'), metered: headers.get('x-service-metered') }).toEqual({ meter: 'spend', metered: 'true' });
      const cost = usdHeader(headers, 'x-service-cost-usd');
      expect(cost).toBeLessThanOrEqual(worstCase);
      return cost;
    });
    for (const error of refused) expectQuotaRefusal(error);
    const spent = costs.reduce((sum, cost) => sum + cost, 0n);
    expect(spent).toBeLessThanOrEqual(allowance);

    // The ledger agrees: 50 traces, one charge per admitted call.
    const { traces, entries } = await committedRecords(e2e.ledger.db, caller.organizationId, 50);
    expect(traces.filter((trace) => trace.http_status === 200)).toHaveLength(admitted.length);
    expect(traces.filter((trace) => trace.http_status === 402 && trace.error_class === 'quota')).toHaveLength(refused.length);
    expect(entries.reduce((sum, entry) => sum + BigInt(entry.amount_micros), 0n)).toBe(spent);
    const after = await failure(client.chat.completions.create({ ...request, max_tokens: 4096 }));
    expect(usdHeader(expectQuotaRefusal(after), 'x-service-quota-spent-usd')).toBe(spent);
  });
});

describe('the requests meter and purchased credits', () => {
  it('counts BYOK requests, refuses past the limit, and lets purchased credits through', async () => {
    const caller = await e2e.seed({ plan: 'e2e_spend_tiny', agent: { plan: 'e2e_spend_tiny', providerKey: 'sk-e2e-byok-requests' } });
    const client = e2e.client(caller.key);
    const call = async () => {
      const answer = await client.chat.completions.create(question('Hello there.')).withResponse();
      expectHeaderSet(answer.response.headers);
      return answer;
    };
    const limit = String(testCatalog.plans.get('e2e_spend_tiny')?.byokRequestsPerMonth);

    const first = await call();
    expect(first.response.headers.get('x-service-mode')).toBe('byok');
    expect(countQuota(first.response.headers)).toEqual({ meter: 'requests', limit, used: '1', remaining: '1', credits: null });
    // The spend headers belong to the spend meter only.
    expect(first.response.headers.get('x-service-quota-spent-usd')).toBeNull();
    const second = await call();
    expect(countQuota(second.response.headers)).toEqual({ meter: 'requests', limit, used: '2', remaining: '0', credits: null });
    expect(countQuota(expectQuotaRefusal(await failure(call())))).toEqual({ meter: 'requests', limit, used: '2', remaining: '0', credits: null });

    const granted = await grantCredits(
      { db: e2e.ledger.db, quota: new RedisQuotaStore(redis, ledgerKeys(e2e.stack.ledgerKeyPrefix)) },
      { organizationId: caller.organizationId, amount: 2 },
    );
    expect(granted.countedNow).toBe(true);
    const third = await call();
    // Remaining includes the credits still held.
    expect(countQuota(third.response.headers)).toEqual({ meter: 'requests', limit, used: '3', remaining: '1', credits: '1' });
    const fourth = await call();
    expect(countQuota(fourth.response.headers)).toEqual({ meter: 'requests', limit, used: '4', remaining: '0', credits: null });
    expectQuotaRefusal(await failure(call()));
  });
});

describe('the legacy meter', () => {
  async function legacyAgent() {
    const caller = await e2e.seed({ plan: 'e2e_legacy', agent: { plan: 'e2e_legacy' } });
    const agentId = caller.agentId ?? '';
    const { gatewayToken } = await issueAgentGatewayToken(e2e.auth.db, { agent: agentId });
    const { agentSecret } = await issueAgentSecret(e2e.auth.db, { description: 'e2e platform' });
    return { caller, agentId, gatewayToken, agentSecret };
  }
  const limit = String(testCatalog.plans.get('e2e_legacy')?.legacyMessagesPerMonth);

  it('measures legacy credentials past the limit and never blocks them', async () => {
    const { agentId, gatewayToken, agentSecret } = await legacyAgent();
    const byToken = e2e.client(gatewayToken);
    const bySecret = e2e.client(agentSecret, { 'X-Service-Agent-Id': agentId });
    const calls = Number(limit) + 2;
    for (let used = 1; used <= calls; used += 1) {
      const client = used % 2 === 0 ? bySecret : byToken;
      const { data, response } = await client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: `Message ${used}.` }] }).withResponse();
      const headers = response.headers;
      expectHeaderSet(headers);
      expect(data.choices[0]?.message.content).toEqual(expect.stringMatching(/\S/));
      expect({ principal: headers.get('x-service-principal'), ...countQuota(headers) }).toEqual({
        principal: used % 2 === 0 ? 'agent_secret' : 'gateway_token',
        meter: 'legacy',
        limit,
        used: String(used),
        remaining: String(Math.max(0, Number(limit) - used)),
        credits: null,
      });
    }
  });

  it('blocks an API key on a legacy plan once its messages are used up', async () => {
    const caller = await e2e.seed({ plan: 'e2e_legacy' });
    const client = e2e.client(caller.key);
    for (let used = 1; used <= Number(limit); used += 1) {
      const { response } = await client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: `Message ${used}.` }] }).withResponse();
      expect({ principal: response.headers.get('x-service-principal'), ...countQuota(response.headers) }).toMatchObject({
        principal: 'api_key',
        meter: 'legacy',
        used: String(used),
      });
    }
    const refused = expectQuotaRefusal(await failure(client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Once more.' }] })));
    expect(countQuota(refused)).toEqual({ meter: 'legacy', limit, used: limit, remaining: '0', credits: null });
  });

  it('rejects a platform agent secret without, or with an unknown, agent id', async () => {
    const { agentSecret } = await legacyAgent();
    const ask = (client: OpenAI) => failure(client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'Hi.' }] }));
    expectApiError(await ask(e2e.client(agentSecret)), 401, 'auth');
    expectApiError(await ask(e2e.client(agentSecret, { 'X-Service-Agent-Id': '00000000-0000-4000-8000-000000000000' })), 401, 'auth');
  });
});

describe('logs', () => {
  it('hold no credential in any process', () => {
    expect(e2e.credentialsInLogs(['sk-e2e-byok-requests'])).toEqual([]);
  });
});
